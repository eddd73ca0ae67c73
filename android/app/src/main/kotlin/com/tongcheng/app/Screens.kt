@file:OptIn(androidx.compose.foundation.layout.ExperimentalLayoutApi::class)

package com.tongcheng.app

import androidx.compose.foundation.background
import androidx.compose.foundation.border
import androidx.compose.foundation.layout.*
import androidx.compose.foundation.lazy.LazyColumn
import androidx.compose.foundation.lazy.items
import androidx.compose.foundation.rememberScrollState
import androidx.compose.foundation.shape.RoundedCornerShape
import androidx.compose.foundation.verticalScroll
import androidx.compose.material3.*
import androidx.compose.runtime.Composable
import androidx.compose.ui.Alignment
import androidx.compose.ui.Modifier
import androidx.compose.ui.draw.alpha
import androidx.compose.ui.graphics.Color
import androidx.compose.ui.semantics.contentDescription
import androidx.compose.ui.semantics.semantics
import androidx.compose.ui.unit.dp
import androidx.compose.ui.unit.sp
import com.tongcheng.model.*
import com.tongcheng.model.Button as ModelButton

// Every screen of the app, drawn from the model's view: texts, names, what is enabled and what
// a tap sends all come in the view. Nothing here reads the game; a layout only places fields.

typealias OnTap = (Tap) -> Unit

private val Felt = Color(0xFF0B5D3B)
private val Ink = Color(0xFF1B1B1B)
private val Wild = Color(0xFFC62828)

/** The Back key sends the screen's own back button, when it has one. */
fun back(v: View): Tap? = when (v) {
    is View.NewMatch -> v.v1.back.tap
    is View.Table -> v.v1.back.tap
    is View.Settings -> v.v1.back.tap
    is View.MyHands -> v.v1.back.tap
    is View.Replay -> v.v1.back.tap
    is View.Queue -> v.v1.cancel.tap
    is View.Room -> v.v1.back.tap
    is View.Tournaments -> v.v1.back.tap
    is View.Tournament -> v.v1.back.tap
    is View.Link -> v.v1.back.tap
    is View.Home, is View.Result -> null
}

@Composable
fun AppScreen(v: View, tap: OnTap) {
    MaterialTheme {
        Surface(Modifier.fillMaxSize()) {
            when (v) {
                is View.Home -> HomeScreen(v.v1, tap)
                is View.NewMatch -> Page(v.v1.title) {
                    v.v1.pickers.forEach { PickerRow(it, tap) }
                    Row { Btn(v.v1.start, tap); Btn(v.v1.back, tap) }
                }
                is View.Table -> TableScreen(v.v1, tap)
                is View.Result -> ResultScreen(v.v1, tap)
                is View.Settings -> Page(v.v1.title) {
                    v.v1.pickers.forEach { PickerRow(it, tap) }
                    Row { Btn(v.v1.link, tap); Btn(v.v1.back, tap) }
                }
                is View.Link -> Page(v.v1.title) {
                    Text(v.v1.showLabel, fontSize = 14.sp)
                    Btn(v.v1.showCode, tap)
                    v.v1.shown?.let { Text(it, fontSize = 22.sp) }
                    Text(v.v1.typeLabel, fontSize = 14.sp)
                    Text(v.v1.typed, fontSize = 22.sp)
                    FlowRow(horizontalArrangement = Arrangement.spacedBy(4.dp), maxItemsInEachRow = 6) { v.v1.keypad.forEach { Btn(it, tap) } }
                    Btn(v.v1.join, tap)
                    v.v1.notice?.let { Text(it, color = Wild) }
                    Btn(v.v1.back, tap)
                }
                is View.MyHands -> MyHandsScreen(v.v1, tap)
                is View.Replay -> ReplayScreen(v.v1, tap)
                is View.Queue -> Page(v.v1.title) { Text(v.v1.status); Btn(v.v1.cancel, tap) }
                is View.Room -> RoomScreen(v.v1, tap)
                is View.Tournaments -> Page(v.v1.title) {
                    v.v1.empty?.let { Text(it) }
                    v.v1.items.forEach { Btn(it, tap, Modifier.fillMaxWidth()) }
                    Btn(v.v1.back, tap)
                }
                is View.Tournament -> Page(v.v1.title) {
                    v.v1.lines.forEach { Text(it) }
                    v.v1.standings.forEach { Text(it, fontSize = 14.sp) }
                    v.v1.me?.let { Text(it, fontSize = 16.sp) }
                    v.v1.verified?.let { Text(it) }
                    v.v1.notice?.let { Text(it, color = Wild) }
                    Row { v.v1.actions.forEach { Btn(it, tap) } }
                    Btn(v.v1.back, tap)
                }
            }
        }
    }
}

/** The model could not open (its folder cannot be written): the error's own words. */
@Composable
fun Unusable(message: String?) {
    Box(Modifier.fillMaxSize().padding(24.dp), contentAlignment = Alignment.Center) { message?.let { Text(it) } }
}

@Composable
fun Page(title: String, body: @Composable ColumnScope.() -> Unit) {
    Column(Modifier.fillMaxSize().padding(16.dp).verticalScroll(rememberScrollState()), verticalArrangement = Arrangement.spacedBy(8.dp)) {
        Text(title, fontSize = 24.sp)
        body()
    }
}

/** A model button: its label, its accessible name, enabled as the model says. */
@Composable
fun Btn(b: ModelButton, tap: OnTap, modifier: Modifier = Modifier) {
    val m = modifier.heightIn(min = 48.dp).semantics { contentDescription = b.name }
    if (b.selected) {
        Button(onClick = { tap(b.tap) }, enabled = b.enabled, modifier = m) { Text(b.label) }
    } else {
        OutlinedButton(onClick = { tap(b.tap) }, enabled = b.enabled, modifier = m) { Text(b.label) }
    }
}

@Composable
fun PickerRow(p: Picker, tap: OnTap) {
    Text(p.label, fontSize = 14.sp)
    FlowRow(horizontalArrangement = Arrangement.spacedBy(6.dp)) { p.options.forEach { Btn(it, tap) } }
}

@Composable
fun HomeScreen(h: HomeView, tap: OnTap) = Page(h.title) {
    h.buttons.forEach { Btn(it, tap, Modifier.fillMaxWidth()) }
    h.notice?.let { Text(it, fontSize = 13.sp) }
    Text(h.online.status, fontSize = 13.sp)
    h.online.ratings.forEach { Text(it, fontSize = 13.sp) }
    h.online.retry?.let { Btn(it, tap) }
}

/** A tile: the model's name on a tile face (a back when hidden), the 财神 marked. */
@Composable
fun TileFace(t: TileView, small: Boolean = false, modifier: Modifier = Modifier) {
    val w = if (small) 26.dp else 40.dp
    Box(
        modifier
            .size(w, w * 1.35f)
            .alpha(if (t.taken) 0.4f else 1f)
            .background(if (t.hidden) Felt.copy(alpha = 0.6f) else Color(0xFFFFFBF0), RoundedCornerShape(4.dp))
            .border(if (t.wild) 2.dp else 1.dp, if (t.wild) Wild else Ink.copy(alpha = 0.3f), RoundedCornerShape(4.dp))
            .semantics { contentDescription = t.name },
        contentAlignment = Alignment.Center,
    ) {
        if (!t.hidden) Text(t.name, fontSize = if (small) 9.sp else 12.sp, color = Ink)
    }
}

@Composable
fun TableScreen(t: TableView, tap: OnTap) {
    Column(Modifier.fillMaxSize().background(Felt).padding(8.dp), verticalArrangement = Arrangement.spacedBy(6.dp)) {
        Text(t.title, color = Color.White)
        Row(verticalAlignment = Alignment.CenterVertically, horizontalArrangement = Arrangement.spacedBy(8.dp)) {
            Text(t.status, color = Color.White, fontSize = 16.sp)
            Text("${t.wallLabel} ${t.wallLeft}", color = Color.White)
            t.countdownSecs?.let { Text("⏱ $it", color = Color.Yellow) }
            t.wild?.let { TileFace(it, small = true) }
        }
        // Seats from the player's own: right, across, left drawn above, his own last.
        t.seats.drop(1).forEach { SeatRow(it) }
        t.seats.firstOrNull()?.let { SeatRow(it) }
        t.hint?.let { Card { Column(Modifier.padding(8.dp)) { Text(it.advice); Text(it.reason, fontSize = 12.sp) } } }
        if (t.piaoChoices.isNotEmpty()) Row { t.piaoChoices.forEach { Btn(it, tap) } }
        if (t.chowChoices.isNotEmpty()) Row { t.chowChoices.forEach { Btn(it, tap) } }
        FlowRow(horizontalArrangement = Arrangement.spacedBy(2.dp)) {
            t.hand.forEach { HandTileButton(it, tap) }
            t.drawn?.let { Spacer(Modifier.width(8.dp)); HandTileButton(it, tap) }
        }
        Row(horizontalArrangement = Arrangement.spacedBy(4.dp)) { t.claimBar.forEach { Btn(it, tap) } }
        Row(horizontalArrangement = Arrangement.spacedBy(4.dp)) { Btn(t.hintButton, tap); Btn(t.autoPlay, tap); Btn(t.back, tap) }
    }
}

@Composable
fun HandTileButton(h: HandTile, tap: OnTap) {
    val lift = if (h.suggested) Modifier.offset(y = (-6).dp) else Modifier
    TextButton(onClick = { tap(h.tap) }, enabled = h.enabled, contentPadding = PaddingValues(0.dp), modifier = lift.sizeIn(minWidth = 44.dp, minHeight = 56.dp)) {
        TileFace(h.tile)
    }
}

@Composable
fun SeatRow(s: SeatView) {
    Column {
        Text(listOfNotNull(s.name, s.badge, s.piao, s.score.toString()).joinToString(" · "), color = if (s.isTurn) Color.Yellow else Color.White, fontSize = 13.sp)
        FlowRow(horizontalArrangement = Arrangement.spacedBy(1.dp)) {
            s.melds.forEach { meld -> meld.forEach { TileFace(it, small = true) }; Spacer(Modifier.width(4.dp)) }
            s.flowers.forEach { TileFace(it, small = true) }
        }
        FlowRow(horizontalArrangement = Arrangement.spacedBy(1.dp)) { s.discards.forEach { TileFace(it, small = true) } }
    }
}

@Composable
fun ResultScreen(r: ResultView, tap: OnTap) = Page(r.heading) {
    Text(r.outcome, fontSize = 18.sp)
    r.fans.forEach { Text("${it.name} ×${it.count}  ${it.points}") }
    Text(r.total.toString(), fontSize = 18.sp)
    r.payments.forEach { Text("${it.seat}  ${it.delta}  (${it.kong})") }
    r.fairness?.let { Text(it) }
    Row { Btn(r.next, tap); r.home?.let { Btn(it, tap) } }
}

@Composable
fun MyHandsScreen(h: MyHandsView, tap: OnTap) {
    Column(Modifier.fillMaxSize().padding(16.dp), verticalArrangement = Arrangement.spacedBy(6.dp)) {
        Text(h.title, fontSize = 24.sp)
        PickerRow(h.statsRules, tap)
        FlowRow(horizontalArrangement = Arrangement.spacedBy(12.dp)) { h.stats.forEach { Text("${it.label} ${it.value}") } }
        h.notice?.let { Text(it) }
        h.sync?.let { s ->
            Row(verticalAlignment = Alignment.CenterVertically, horizontalArrangement = Arrangement.spacedBy(8.dp)) {
                Text(s.title, fontSize = 16.sp)
                Text(s.status, fontSize = 13.sp, modifier = Modifier.weight(1f))
                Btn(s.syncNow, tap)
            }
            s.refused.forEach { Text(it, fontSize = 12.sp, color = Wild) }
        }
        LazyColumn(Modifier.weight(1f)) {
            items(h.hands) { row ->
                Column(Modifier.padding(vertical = 4.dp)) {
                    Btn(row.open, tap, Modifier.fillMaxWidth())
                    Text(row.detail, fontSize = 12.sp)
                    Text(row.points, color = if (row.won) Wild else Ink)
                }
            }
        }
        Row(verticalAlignment = Alignment.CenterVertically) { Btn(h.previous, tap); Text(h.pageLabel); Btn(h.next, tap); Btn(h.back, tap) }
    }
}

@Composable
fun ReplayScreen(r: ReplayView, tap: OnTap) {
    Column(Modifier.fillMaxSize().background(Felt).padding(8.dp).verticalScroll(rememberScrollState()), verticalArrangement = Arrangement.spacedBy(6.dp)) {
        Text(r.title, color = Color.White)
        Text("${r.stepLabel} · ${r.lastMove}", color = Color.White)
        Text(r.status, color = Color.White)
        r.seats.forEach { SeatRow(it) }
        FlowRow { r.hand.forEach { TileFace(it) }; r.drawn?.let { Spacer(Modifier.width(8.dp)); TileFace(it) } }
        Row { r.controls.forEach { Btn(it, tap) } }
        Text(r.verified, color = Color.White, fontSize = 12.sp)
        r.result?.let { ResultScreen(it, tap) }
        Btn(r.back, tap)
    }
}

@Composable
fun RoomScreen(r: RoomView, tap: OnTap) = Page(r.title) {
    Text(r.rules)
    PickerRow(r.people, tap)
    Btn(r.open, tap)
    Text("${r.codeLabel} ${r.code}", fontSize = 20.sp)
    FlowRow(horizontalArrangement = Arrangement.spacedBy(6.dp), maxItemsInEachRow = 3) { r.keypad.forEach { Btn(it, tap) } }
    Row { Btn(r.join, tap); Btn(r.back, tap) }
}
