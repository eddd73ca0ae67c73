package com.tongcheng.app

import android.os.Bundle
import androidx.activity.ComponentActivity
import androidx.activity.compose.BackHandler
import androidx.activity.compose.setContent
import androidx.compose.foundation.clickable
import androidx.compose.foundation.layout.*
import androidx.compose.foundation.lazy.LazyColumn
import androidx.compose.foundation.lazy.LazyRow
import androidx.compose.foundation.lazy.items
import androidx.compose.foundation.rememberScrollState
import androidx.compose.foundation.selection.selectable
import androidx.compose.foundation.verticalScroll
import androidx.compose.material3.*
import androidx.compose.runtime.*
import androidx.compose.ui.Alignment
import androidx.compose.ui.Modifier
import androidx.compose.ui.draw.alpha
import androidx.compose.ui.graphics.Color
import androidx.compose.ui.unit.dp
import androidx.compose.ui.unit.sp
import com.tongcheng.core.HistoryStore
import com.tongcheng.presenter.*
import kotlinx.coroutines.delay
import java.io.File
import java.io.IOException

/** Which screen is up. */
private sealed interface Screen {
    data object Start : Screen
    data object Table : Screen
    data object History : Screen
}

/**
 * The app's screens — start (continue the kept match, or rules and level for a new one), table,
 * history — drawn from the presenter's models; all decisions are the presenter's (tested on the
 * JVM). This class only keeps files: finished hands go to the history in the app's files, the
 * match in play to `unfinished.json` (+ `.match`, `.setup`) when the app stops, so it can be
 * continued after Android ends the process, and the last setup chosen to `setup.txt`.
 */
class MainActivity : ComponentActivity() {
    private var history: HistoryStore? = null
    private var historyNotice: String? = null
    private lateinit var lobby: Lobby
    private var playing: MatchInPlay? = null

    private var screen by mutableStateOf<Screen>(Screen.Start)
    private var lobbyUi by mutableStateOf<LobbyUi?>(null)

    private val unfinished get() = File(filesDir, "unfinished.json")
    private val matchIdFile get() = File(filesDir, "unfinished.match")
    private val setupFile get() = File(filesDir, "unfinished.setup")
    private val lastSetupFile get() = File(filesDir, "setup.txt")

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        val opened = openHistory(File(filesDir, "history.db").path)
        history = opened.store
        historyNotice = opened.notice
        openLobby()
        setContent {
            MaterialTheme {
                Surface(Modifier.fillMaxSize()) {
                    when (screen) {
                        Screen.Start -> lobbyUi?.let { ui ->
                            StartScreen(
                                ui = ui,
                                historyNotice = historyNotice,
                                onRules = { lobbyUi = lobby.choose(it) },
                                onLevel = { lobbyUi = lobby.choose(it) },
                                onContinue = { lobby.resume()?.let { play(it) } },
                                onNew = { newMatch() },
                                onHistory = { screen = Screen.History },
                            )
                        }
                        Screen.Table -> playing?.let { m ->
                            TableScreen(m, onLeave = { leaveTable() })
                            BackHandler { leaveTable() }
                        }
                        Screen.History -> {
                            // Read afresh on every visit: the presenter lives while the screen is up.
                            val presenter = remember { HistoryPresenter(history) }
                            HistoryScreen(presenter, onBack = { screen = Screen.Start })
                            BackHandler { screen = Screen.Start }
                        }
                    }
                }
            }
        }
    }

    /** The start screen, offering the kept match if there is one. */
    private fun openLobby() {
        val saved = readText(unfinished)?.let { json ->
            SavedMatch(json, MatchSetup.decodeStrict(readText(setupFile)), readText(matchIdFile)?.trim()?.toLongOrNull())
        }
        lobby = Lobby(saved, MatchSetup.decode(readText(lastSetupFile)), history)
        if (lobby.state.savedMatchUnusable) setAsideKept()
        lobbyUi = lobby.state
        screen = Screen.Start
    }

    private fun newMatch() {
        val m = lobby.startNew(kotlin.random.Random.nextLong().toULong())
        if (m == null) {
            lobbyUi = lobby.state // says why
            return
        }
        m.setup?.let { write(lastSetupFile, it.encode()) }
        play(m)
    }

    private fun play(m: MatchInPlay) {
        if (!m.resumed) forgetKept()
        playing = m
        screen = Screen.Table
    }

    /** Back to the start screen mid-match: the match is kept and offered as "Continue". */
    private fun leaveTable() {
        keepMatch()
        playing?.presenter?.close()
        playing = null
        lobby.close()
        openLobby()
    }

    private fun keepMatch() {
        val m = playing ?: return
        val kept = m.presenter.keep(m.setup)
        if (kept == null) {
            forgetKept()
            return
        }
        write(unfinished, kept.json)
        kept.matchId?.let { write(matchIdFile, it.toString()) } ?: matchIdFile.delete()
        kept.setup?.let { write(setupFile, it.encode()) } ?: setupFile.delete()
    }

    private fun forgetKept() {
        unfinished.delete(); matchIdFile.delete(); setupFile.delete()
    }

    /** A kept match that cannot be resumed is renamed, not deleted (for a bug report). */
    private fun setAsideKept() {
        unfinished.renameTo(File(filesDir, "unfinished.json.unusable-${System.currentTimeMillis() / 1000}"))
        matchIdFile.delete(); setupFile.delete()
    }

    private fun readText(f: File): String? = try {
        if (f.exists()) f.readText() else null
    } catch (e: IOException) {
        null
    }

    private fun write(f: File, text: String) {
        try {
            f.writeText(text)
        } catch (e: IOException) {
            // Full or read-only storage: the match just cannot be kept; play goes on.
        }
    }

    override fun onStop() {
        keepMatch()
        super.onStop()
    }

    override fun onDestroy() {
        playing?.presenter?.close()
        lobby.close()
        history?.close()
        super.onDestroy()
    }
}

@Composable
fun StartScreen(
    ui: LobbyUi,
    historyNotice: String?,
    onRules: (RuleChoice) -> Unit,
    onLevel: (BotLevel) -> Unit,
    onContinue: () -> Unit,
    onNew: () -> Unit,
    onHistory: () -> Unit,
) {
    Column(Modifier.fillMaxSize().padding(16.dp).verticalScroll(rememberScrollState())) {
        Text("桐城麻将", fontSize = 28.sp)
        historyNotice?.let { Text(it, color = Color(0xFFB71C1C), fontSize = 13.sp) }
        ui.notice?.let { Text(it, color = Color(0xFFB71C1C), fontSize = 13.sp) }
        ui.resume?.let { kept ->
            Spacer(Modifier.height(12.dp))
            Text("Unfinished match", fontSize = 18.sp)
            Text(kept, fontSize = 14.sp)
            Button(onClick = onContinue) { Text("Continue") }
        }
        Spacer(Modifier.height(12.dp))
        Text("New match", fontSize = 18.sp)
        Text("Rules", fontSize = 14.sp)
        ui.rules.forEachIndexed { i, c -> ChoiceRow(c) { onRules(RuleChoice.entries[i]) } }
        Text("Bots", fontSize = 14.sp)
        ui.levels.forEachIndexed { i, c -> ChoiceRow(c) { onLevel(BotLevel.entries[i]) } }
        Row {
            Button(onClick = onNew) { Text(if (ui.resume != null) "Start new (gives up the unfinished one)" else "Start") }
            Spacer(Modifier.width(8.dp))
            OutlinedButton(onClick = onHistory) { Text("History") }
        }
    }
}

@Composable
fun ChoiceRow(c: ChoiceUi, onSelect: () -> Unit) {
    Row(
        Modifier.fillMaxWidth().selectable(selected = c.selected, onClick = onSelect).padding(vertical = 4.dp),
        verticalAlignment = Alignment.CenterVertically,
    ) {
        RadioButton(selected = c.selected, onClick = onSelect)
        Column {
            Text(c.label)
            Text(c.detail, fontSize = 12.sp)
        }
    }
}

@Composable
fun HistoryScreen(p: HistoryPresenter, onBack: () -> Unit) {
    var ui by remember(p) { mutableStateOf(p.load()) }
    Column(Modifier.fillMaxSize().padding(8.dp)) {
        Row(verticalAlignment = Alignment.CenterVertically) {
            TextButton(onClick = onBack) { Text("‹ Back") }
            Text("History", fontSize = 20.sp)
        }
        Text(ui.summary, fontSize = 13.sp)
        ui.error?.let { Text(it, color = Color.Red) }
        ui.empty?.let { Text(it) }
        LazyColumn(Modifier.weight(1f)) {
            items(ui.rows, key = { it.id }) { r ->
                Column(Modifier.padding(vertical = 6.dp)) {
                    Row {
                        Text("${r.playedAt} · ${r.rules}", fontSize = 12.sp, modifier = Modifier.weight(1f))
                        Text(
                            r.points,
                            color = when (r.outcome) {
                                HandOutcome.WON -> Color(0xFF1B5E20)
                                HandOutcome.DEALT_IN -> Color(0xFFB71C1C)
                                else -> Color.Unspecified
                            },
                        )
                    }
                    Text(r.result)
                    if (r.fans.isNotEmpty()) Text(r.fans, fontSize = 12.sp)
                }
            }
            if (ui.hasMore) item { TextButton(onClick = { ui = p.more() }) { Text("More") } }
        }
    }
}

@Composable
fun TableScreen(m: MatchInPlay, onLeave: () -> Unit) {
    val p = m.presenter
    var ui by remember(p) { mutableStateOf(p.start()) }
    var hint by remember(p) { mutableStateOf<HintUi?>(null) }
    // Time passes: the table's clock plays timeouts and 托管 itself; this only redraws.
    LaunchedEffect(p) {
        while (true) {
            delay(250)
            val next = p.tick()
            if (next != ui) {
                if (next.status != ui.status || next.hand != ui.hand) hint = null
                ui = next
            }
        }
    }
    Column(Modifier.fillMaxSize().padding(8.dp)) {
        Row(verticalAlignment = Alignment.CenterVertically) {
            Text("${ui.title} · wall ${ui.wall}", fontSize = 14.sp, modifier = Modifier.weight(1f))
            TextButton(onClick = onLeave) { Text("Menu") }
        }
        m.notice?.let { Text(it, color = Color(0xFFB71C1C), fontSize = 12.sp) }
        ui.seats.filter { !it.isYou }.forEach { s ->
            Text(s.line, fontSize = 12.sp)
            if (s.melds.isNotEmpty()) Text(s.melds.joinToString("  "), fontSize = 20.sp)
            LazyRow { items(s.discards) { TileView(it, size = 20) {} } }
        }
        Spacer(Modifier.weight(1f))
        ui.seats.firstOrNull { it.isYou }?.let { you ->
            Text(you.line, fontSize = 12.sp)
            if (you.melds.isNotEmpty()) Text(you.melds.joinToString("  "), fontSize = 22.sp)
            LazyRow { items(you.discards) { TileView(it, size = 20) {} } }
        }
        val clock = TablePresenter.countdown(ui)
        Text(ui.status + (clock?.let { " · $it" } ?: ""))
        if (ui.autoPlay) Button(onClick = { ui = p.autoPlay(false) }) { Text("Take back") }
        ui.error?.let { Text(it, color = Color.Red) }
        hint?.let { HintPanel(it) }
        Row {
            ui.hand.forEach { t -> TileView(t) { ui = p.tapTile(t.code); hint = null } }
            ui.drawn?.let { t ->
                Spacer(Modifier.width(12.dp))
                TileView(t) { ui = p.tapTile(t.code); hint = null }
            }
        }
        Row {
            ui.buttons.forEach { b -> Button(onClick = { ui = p.press(b.action); hint = null }) { Text(b.label) } }
            if (!ui.handFinished) {
                Button(onClick = { hint = p.hintUi() }) { Text("Hint") }
            }
        }
        if (ui.handFinished) {
            ui.resultLines.forEach { Text(it) }
            if (ui.matchFinished) {
                Text("The match is over.")
                Button(onClick = onLeave) { Text("New match") }
            } else {
                Button(onClick = { p.nextHand(); ui = p.state; hint = null }) { Text("Next hand") }
            }
        }
    }
}

@Composable
fun HintPanel(h: HintUi) {
    Column(Modifier.padding(vertical = 4.dp)) {
        Text(h.headline, fontSize = 14.sp)
        if (h.reason.isNotBlank()) Text(h.reason, fontSize = 12.sp)
        h.choices.forEach { c ->
            Text((if (c.recommended) "★ " else "· ") + c.line, fontSize = 12.sp)
            c.value?.let { Text("   $it", fontSize = 12.sp) }
            c.versus?.let { Text("   $it", fontSize = 12.sp) }
        }
    }
}

@Composable
fun TileView(t: TileUi, size: Int = 30, onTap: () -> Unit) {
    val colour = when (t.suit) {
        "m" -> Color(0xFFB71C1C)
        "p" -> Color(0xFF0D47A1)
        "s" -> Color(0xFF1B5E20)
        else -> Color.Black
    }
    Text(
        t.glyph,
        fontSize = size.sp,
        color = colour,
        modifier = Modifier.padding(1.dp)
            .alpha(if (t.dimmed) 0.4f else 1f)
            .then(if (t.tappable) Modifier.clickable(onClick = onTap) else Modifier),
    )
}
