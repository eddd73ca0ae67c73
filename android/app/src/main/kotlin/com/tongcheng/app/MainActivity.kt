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
import com.tongcheng.core.SessionConfig
import com.tongcheng.presenter.TablePresenter
import com.tongcheng.presenter.TableUi
import com.tongcheng.presenter.TileUi
import kotlinx.coroutines.delay

/** The table screen: draws the presenter's [TableUi] and forwards taps. No game logic here. */
class MainActivity : ComponentActivity() {
    private lateinit var presenter: TablePresenter

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        presenter = TablePresenter(GameSession(SessionConfig("guobiao", "normal", kotlin.random.Random.nextLong().toULong(), true, 0u)))
        setContent { MaterialTheme { TableScreen(presenter) } }
    }

    override fun onDestroy() {
        presenter.close()
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
