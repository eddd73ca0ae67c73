package com.tongcheng.app

import android.os.Bundle
import androidx.activity.ComponentActivity
import androidx.activity.compose.setContent
import androidx.compose.foundation.clickable
import androidx.compose.foundation.layout.*
import androidx.compose.foundation.lazy.LazyRow
import androidx.compose.foundation.lazy.items
import androidx.compose.material3.*
import androidx.compose.runtime.*
import androidx.compose.ui.Modifier
import androidx.compose.ui.graphics.Color
import androidx.compose.ui.unit.dp
import androidx.compose.ui.unit.sp
import com.tongcheng.core.GameSession
import com.tongcheng.core.HistoryStore
import com.tongcheng.core.TongchengException
import com.tongcheng.core.moveAside
import com.tongcheng.core.SessionConfig
import com.tongcheng.presenter.TablePresenter
import com.tongcheng.presenter.TableUi
import com.tongcheng.presenter.TileUi
import kotlinx.coroutines.delay
import java.io.File

/** The table screen: draws the presenter's [TableUi] and forwards taps. No game logic here.
 *  Finished hands go to the history in the app's files; the match in play is kept in
 *  `unfinished.json` when the app stops, so it continues after Android ends the process. */
class MainActivity : ComponentActivity() {
    private lateinit var presenter: TablePresenter
    private lateinit var session: GameSession
    private var history: HistoryStore? = null
    private val unfinished get() = File(filesDir, "unfinished.json")
    private val matchIdFile get() = File(filesDir, "unfinished.match")

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        history = openHistory(File(filesDir, "history.db").path)
        session = resumeOrStart()
        presenter = TablePresenter(session)
        setContent { MaterialTheme { TableScreen(presenter) } }
    }

    private fun openHistory(path: String): HistoryStore? = try {
        HistoryStore.open(path)
    } catch (e: TongchengException.UnusableHistory) {
        moveAside(path) // keep the old file for support, start a new history
        HistoryStore.open(path)
    } catch (e: TongchengException) {
        null // read-only storage: play on without saving
    }

    private fun resumeOrStart(): GameSession {
        val saved = unfinished.takeIf { it.exists() }?.readText()
        val resumed = saved?.let { runCatching { GameSession.resume(it) }.getOrNull() }
        val s = resumed ?: GameSession(SessionConfig("guobiao", "normal", kotlin.random.Random.nextLong().toULong(), true, 0u))
        history?.let { h ->
            val matchId = matchIdFile.takeIf { resumed != null && it.exists() }?.readText()?.toLongOrNull()
            runCatching { if (matchId != null) s.continueSavingTo(h, matchId) else s.saveTo(h) }
                .onFailure { s.saveTo(h) }
        }
        return s
    }

    override fun onStop() {
        if (session.table().matchFinished) {
            unfinished.delete(); matchIdFile.delete()
        } else {
            unfinished.writeText(session.savedJson())
            session.historyMatchId()?.let { matchIdFile.writeText(it.toString()) }
        }
        super.onStop()
    }

    override fun onDestroy() {
        presenter.close()
        history?.close()
        super.onDestroy()
    }
}

@Composable
fun TableScreen(p: TablePresenter) {
    var ui by remember { mutableStateOf(p.start()) }
    var hint by remember { mutableStateOf<String?>(null) }
    var secondsLeft by remember(ui) { mutableIntStateOf(ui.secondsLimit) }
    LaunchedEffect(ui) {
        while (secondsLeft > 0) {
            delay(1000)
            secondsLeft--
        }
        if (ui.secondsLimit > 0 && !ui.handFinished) ui = p.timeout()
    }
    Column(Modifier.fillMaxSize().padding(8.dp)) {
        Text("${ui.title} · wall ${ui.wall}", fontSize = 14.sp)
        ui.seats.filter { !it.isYou }.forEach { s ->
            Text("${s.wind}${if (s.isTurn) " ▶" else ""}  ${s.score}  melds ${s.melds.joinToString(" ")}  flowers ${s.flowers}", fontSize = 12.sp)
            LazyRow { items(s.discards) { TileView(it) {} } }
        }
        Spacer(Modifier.weight(1f))
        Text(ui.status + if (secondsLimitShown(ui)) " ($secondsLeft s)" else "")
        ui.error?.let { Text(it, color = Color.Red) }
        hint?.let { Text(it, fontSize = 12.sp) }
        Row {
            ui.hand.forEach { t -> TileView(t) { ui = p.tapTile(t.code); hint = null } }
            ui.drawn?.let { t ->
                Spacer(Modifier.width(12.dp))
                TileView(t) { ui = p.tapTile(t.code); hint = null }
            }
        }
        Row {
            ui.buttons.forEach { b -> Button(onClick = { ui = p.press(b.action); hint = null }) { Text(b.label) } }
            Button(onClick = { hint = p.hint()?.let { h -> h.reason } }) { Text("Hint") }
        }
        if (ui.handFinished) {
            ui.resultLines.forEach { Text(it) }
            if (!ui.matchFinished) Button(onClick = { if (p.nextHand()) ui = p.state }) { Text("Next hand") }
        }
    }
}

private fun secondsLimitShown(ui: TableUi) = ui.secondsLimit > 0 && !ui.handFinished

@Composable
fun TileView(t: TileUi, onTap: () -> Unit) {
    val colour = when (t.suit) {
        "m" -> Color(0xFFB71C1C)
        "p" -> Color(0xFF0D47A1)
        "s" -> Color(0xFF1B5E20)
        else -> Color.Black
    }
    Text(
        t.glyph,
        fontSize = 30.sp,
        color = colour,
        modifier = Modifier.padding(1.dp).then(if (t.tappable) Modifier.clickable(onClick = onTap) else Modifier),
    )
}
