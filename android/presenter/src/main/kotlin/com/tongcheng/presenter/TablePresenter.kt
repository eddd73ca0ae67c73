package com.tongcheng.presenter

import com.tongcheng.core.ActionModel
import com.tongcheng.core.DecisionKindModel
import com.tongcheng.core.GameSession
import com.tongcheng.core.HintModel
import com.tongcheng.core.TableModel
import com.tongcheng.core.TileModel
import com.tongcheng.core.TongchengException

/** A tile as the screen draws it; `dimmed` for a discard taken into another seat's meld. */
/** `wild`: the Hangzhou 财神, marked in the hand so it is never thrown by mistake. */
data class TileUi(val code: String, val glyph: String, val suit: String, val tappable: Boolean, val dimmed: Boolean = false, val wild: Boolean = false)

/** A button under the hand: claim, pass, win, kong. */
data class ButtonUi(val label: String, val action: ActionModel)

/** One seat around the table. */
data class SeatUi(
    val seat: Int,
    val wind: String,
    val isYou: Boolean,
    val isTurn: Boolean,
    val isDealer: Boolean,
    val score: Int,
    val concealed: Int,
    val melds: List<String>,
    val discards: List<TileUi>,
    val flowers: Int,
) {
    /** The seat's line above its discards: "S (dealer) ▶ · +12 · 10 tiles · 2 flowers". */
    val line: String
        get() = listOfNotNull(
            wind + (if (isDealer) " (dealer)" else "") + (if (isTurn) " ▶" else ""),
            Lobby.signed(score.toLong()),
            if (concealed == 1) "1 tile" else "$concealed tiles",
            when (flowers) { 0 -> null; 1 -> "1 flower"; else -> "$flowers flowers" },
        ).joinToString(" · ")
}

/** Everything the table screen shows: the screen renders this and nothing else. */
data class TableUi(
    val title: String,
    val status: String,
    val seats: List<SeatUi>,
    val hand: List<TileUi>,
    val drawn: TileUi?,
    val buttons: List<ButtonUi>,
    val wall: Int,
    /** Seconds left for your decision, as the table's clock says; null when it is untimed. */
    val secondsLeft: Int?,
    /** 托管: your seat plays itself until you take it back ([TablePresenter.autoPlay]). */
    val autoPlay: Boolean,
    val resultLines: List<String>,
    val handFinished: Boolean,
    val matchFinished: Boolean,
    val error: String?,
)

/** The phone's monotonic clock in milliseconds, as the table's clock is driven (never the
 *  wall clock, which the user may change). */
object PhoneClock {
    private val origin = System.nanoTime()

    fun nowMs(): ULong = ((System.nanoTime() - origin) / 1_000_000).toULong()
}

/**
 * The screen logic of the table, free of Android imports so the JVM tests run it against the
 * real Rust library. The Compose UI (and the SwiftUI mirror) only draw [TableUi] and forward
 * taps here. Time limits, timeouts and 托管 are the core table's: the view lets time pass
 * with [tick] and draws the countdown the model carries.
 */
class TablePresenter(
    private val session: GameSession,
    private val clock: () -> ULong = PhoneClock::nowMs,
) : AutoCloseable {
    var state: TableUi = render(session.table(), null)
        private set

    /** Lets the bots play until it is the human's turn; call once at the start of a hand. */
    fun start(): TableUi = update { session.advance(clock()) }

    /** Time passes: the table plays whatever is due now (the timeout action once the clock has
     *  run out, the stand-in's moves on 托管) and the countdown moves on. Views call it a few
     *  times a second. */
    fun tick(): TableUi = update { session.advance(clock()) }

    /** Hands the seat to its stand-in (托管) or takes it back. */
    fun autoPlay(on: Boolean): TableUi = update {
        session.setAutoPlay(on)
        session.advance(clock())
    }

    /** A tap on a tile of the hand: discards it when a discard is legal. */
    fun tapTile(code: String): TableUi {
        val legal = session.table().pending?.legal.orEmpty()
        val discard = legal.firstOrNull { it is ActionModel.Discard && it.tile == code }
            ?: return state.copy(error = "You cannot discard $code now")
        return press(discard)
    }

    /** A button (or any action): applies it, then lets the bots play on. */
    fun press(action: ActionModel): TableUi = update {
        val now = clock()
        session.act(action, now)
        session.advance(now)
    }

    fun hint(): HintModel? = session.hint()

    /** The hint for the pending decision, formatted for the hint panel; null when there is no
     *  decision. */
    fun hintUi(): HintUi? = session.hint()?.let { HintUi.of(it) }

    /** The match to keep when the app stops, or null when it is over (forget the kept one). */
    fun keep(setup: MatchSetup?): SavedMatch? {
        if (session.table().matchFinished) return null
        return SavedMatch(session.savedJson(), setup, session.historyMatchId())
    }

    /** Deals the next hand of a match; false when the match is over. */
    fun nextHand(): Boolean {
        val moved = try {
            session.nextHand()
        } catch (e: TongchengException) {
            state = render(session.table(), e.text)
            return false
        }
        if (moved) start()
        return moved
    }

    override fun close() = session.close()

    private fun update(block: () -> TableModel): TableUi {
        state = try {
            render(block(), null)
        } catch (e: TongchengException) {
            render(session.table(), e.text)
        }
        return state
    }

    companion object {
        fun tileUi(t: TileModel, tappable: Boolean, dimmed: Boolean = false) = TileUi(t.code, t.glyph, t.suit, tappable, dimmed)

        /** Another seat's discard laid face down (暗牌): a tile back, no code. */
        fun faceDown(dimmed: Boolean) = TileUi("", "🀫", "", false, dimmed)

        /** The countdown beside the status while a decision is timed: "8 s left"; null otherwise. */
        fun countdown(ui: TableUi): String? =
            ui.secondsLeft?.takeIf { !ui.handFinished }?.let { "$it s left" }

        /** Whole seconds left, rounded up (a countdown shows 1 until the time is out). */
        fun seconds(ms: ULong?): Int? = ms?.let { ((it + 999uL) / 1000uL).toInt() }

        fun label(a: ActionModel): String = when (a) {
            is ActionModel.Discard -> "Discard ${a.tile}"
            is ActionModel.Chow -> "Chow ${a.low}"
            is ActionModel.Pung -> "Pung"
            is ActionModel.Kong -> "Kong"
            is ActionModel.ConcealedKong -> "Kong ${a.tile}"
            is ActionModel.AddedKong -> "Kong ${a.tile}"
            is ActionModel.Win -> "Win"
            is ActionModel.Pass -> "Pass"
        }

        fun render(t: TableModel, error: String?): TableUi {
            val pending = t.pending
            val canDiscard = pending?.kind == DecisionKindModel.TURN
            val buttons = pending?.legal.orEmpty().filter { it !is ActionModel.Discard }.map { ButtonUi(label(it), it) }
            val status = when {
                t.finished -> "Hand over"
                t.autoPlay -> "Auto-play (托管): your seat plays itself"
                pending == null -> "Waiting for the other players"
                pending.kind == DecisionKindModel.TURN -> "Your turn: tap a tile to discard"
                else -> "Claim ${pending.tile?.code ?: ""}?"
            }
            val result = t.result
            val resultLines = if (result == null) emptyList() else buildList {
                val w = result.winner
                add(if (w == null) "Draw: the wall is exhausted" else "Seat $w wins${if (result.selfDrawn) " (self-drawn)" else ""}")
                result.fans.forEach { add("${it.zh} ${it.en}  ${it.points}${if (it.count > 1u) " ×${it.count}" else ""}") }
                if (w != null) add("Total ${result.total}")
                add("Scores: " + result.deltas.joinToString(" "))
            }
            return TableUi(
                title = "Hand ${t.handNumber} · ${t.prevalentWind} round" + (t.wild?.let { " · 财神 ${it.glyph} ${it.code}" } ?: ""),
                status = status,
                seats = t.seats.map { s ->
                    SeatUi(
                        seat = s.seat.toInt(),
                        wind = s.wind,
                        isYou = s.isYou,
                        isTurn = s.isTurn,
                        isDealer = s.isDealer,
                        score = s.score,
                        concealed = s.concealedCount.toInt(),
                        melds = s.melds.map { m -> if (m.tiles.isEmpty()) "🀫🀫🀫🀫" else m.tiles.joinToString("") { it.glyph } },
                        discards = s.discards.map { d -> d.tile?.let { tileUi(it, false, dimmed = d.claimed) } ?: faceDown(d.claimed) },
                        flowers = s.flowers.size,
                    )
                },
                hand = t.hand.map { tileUi(it, canDiscard).copy(wild = it.code == t.wild?.code) },
                drawn = t.drawn?.let { d -> tileUi(d, canDiscard).copy(wild = d.code == t.wild?.code) },
                buttons = buttons,
                wall = t.wallRemaining.toInt(),
                secondsLeft = seconds(t.remainingMs),
                autoPlay = t.autoPlay,
                resultLines = resultLines,
                handFinished = t.finished,
                matchFinished = t.matchFinished,
                error = error,
            )
        }
    }
}
