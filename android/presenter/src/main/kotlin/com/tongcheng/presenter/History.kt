package com.tongcheng.presenter

import com.tongcheng.core.HandSummaryModel
import com.tongcheng.core.HistoryStore
import com.tongcheng.core.StatsModel
import com.tongcheng.core.TongchengException
import com.tongcheng.core.moveAside
import java.io.File
import java.time.Instant
import java.time.ZoneId
import java.time.format.DateTimeFormatter

/** The history as the app opened it: the store (null when it cannot be used) and what to tell
 *  the player about it. */
class OpenedHistory(val store: HistoryStore?, val notice: String?)

/** Opens the history at `path`. A file that is not a usable history (damaged, written by a
 *  newer app) is moved aside, kept for support, and a new history started; storage that
 *  cannot be written leaves the app playing without saving. Never throws. */
fun openHistory(path: String): OpenedHistory = try {
    OpenedHistory(HistoryStore.open(path), null)
} catch (e: TongchengException.UnusableHistory) {
    try {
        val aside = moveAside(path)
        OpenedHistory(
            HistoryStore.open(path),
            "The history could not be read (${e.text}); it was kept as ${File(aside).name} and a new one started.",
        )
    } catch (again: TongchengException) {
        OpenedHistory(null, "The history cannot be used (${again.text}): hands are not being saved.")
    }
} catch (e: TongchengException) {
    OpenedHistory(null, "The history cannot be opened (${e.text}): hands are not being saved.")
}

/** How a hand ended for the player. */
enum class HandOutcome { WON, LOST, DEALT_IN, DRAW }

/** One hand in the history list. */
data class HistoryRowUi(
    val id: Long,
    /** "2026-12-03 09:52" in the phone's time zone. */
    val playedAt: String,
    val rules: String,
    val outcome: HandOutcome,
    /** "Won self-drawn, 24 fan", "Dealt in to seat 2, 8 fan", "Draw". */
    val result: String,
    /** The player's score change: "+24", "−8", "0". */
    val points: String,
    /** "清一色 Full Flush 24, 平和 All Chows 2", biggest first; empty for a draw. */
    val fans: String,
)

/** The history screen. */
data class HistoryUi(
    /** "12 hands · 3 wins (25%) · dealt in 17% · +45 points". */
    val summary: String,
    val rows: List<HistoryRowUi>,
    /** More hands than shown: offer "More". */
    val hasMore: Boolean,
    /** Said instead of the list when there is nothing to list. */
    val empty: String?,
    val error: String?,
)

/** Recent hands with result and points, newest first, a page at a time, as `tongcheng history`
 *  lists them. Errors of the store are shown, never thrown. */
class HistoryPresenter(
    private val store: HistoryStore?,
    private val zone: ZoneId = ZoneId.systemDefault(),
    private val pageSize: Int = 20,
) {
    var state = HistoryUi("", emptyList(), hasMore = false, empty = null, error = null)
        private set

    /** The first page and the statistics, read afresh. */
    fun load(): HistoryUi {
        state = HistoryUi("", emptyList(), hasMore = false, empty = null, error = null)
        return more()
    }

    /** The next page, appended. */
    fun more(): HistoryUi {
        val s = store ?: return HistoryUi("", emptyList(), false, null, "The history cannot be opened on this phone: no hands are saved.").also { state = it }
        state = try {
            val stats = s.stats()
            // One more than a page tells whether there is a next one.
            val page = s.listHands(state.rows.size.toUInt(), (pageSize + 1).toUInt())
            val rows = state.rows + page.take(pageSize).map { row(it, zone) }
            HistoryUi(
                summary = summary(stats),
                rows = rows,
                hasMore = page.size > pageSize,
                empty = if (rows.isEmpty()) "No hands yet: finished hands appear here." else null,
                error = null,
            )
        } catch (e: TongchengException) {
            state.copy(error = "The history could not be read: ${e.text}")
        }
        return state
    }

    companion object {
        private val dateFormat = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")

        fun row(h: HandSummaryModel, zone: ZoneId): HistoryRowUi {
            val fan = h.fanTotal?.let { ", $it fan" }.orEmpty()
            val how = if (h.selfDrawn) " self-drawn" else ""
            val winner = h.winner
            val (outcome, result) = when {
                winner == null -> HandOutcome.DRAW to "Draw"
                h.won -> HandOutcome.WON to "Won$how$fan"
                h.dealtIn -> HandOutcome.DEALT_IN to "Dealt in to seat $winner$fan"
                else -> HandOutcome.LOST to "Seat $winner won$how$fan"
            }
            return HistoryRowUi(
                id = h.id,
                playedAt = Instant.ofEpochSecond(h.playedAt).atZone(zone).format(dateFormat),
                rules = RuleChoice.ofPreset(h.rules)?.title ?: h.rules,
                outcome = outcome,
                result = result,
                points = Lobby.signed(h.points.toLong()),
                fans = h.fans.joinToString(", "),
            )
        }

        fun summary(s: StatsModel): String {
            if (s.hands == 0uL) return "No hands played yet"
            val pct = { r: Double -> "${Math.round(100 * r)}%" }
            val hands = if (s.hands == 1uL) "1 hand" else "${s.hands} hands"
            val wins = if (s.wins == 1uL) "1 win" else "${s.wins} wins"
            val points = if (s.totalPoints == 1L || s.totalPoints == -1L) "point" else "points"
            return "$hands · $wins (${pct(s.winRate)}) · dealt in ${pct(s.dealInRate)} · " +
                "${Lobby.signed(s.totalPoints)} $points"
        }
    }
}
