package com.tongcheng.presenter

import com.tongcheng.core.GameSession
import com.tongcheng.core.HistoryStore
import com.tongcheng.core.TableModel
import com.tongcheng.core.TongchengException

/**
 * The match the phone keeps when the app stops mid-match (Android and iOS may end the process
 * in the background): the session's `savedJson`, the setup it was started with (null when the
 * file predates it) and the history's match row its hands are saved under.
 */
data class SavedMatch(val json: String, val setup: MatchSetup?, val matchId: Long?)

/** One option on the start screen. */
data class ChoiceUi(val label: String, val detail: String, val selected: Boolean)

/** The start screen: continue the kept match, or choose rules and level for a new one. */
data class LobbyUi(
    /** What "Continue" resumes ("杭州 Hangzhou · hard bots · hand 3, 61 tiles in the wall ·
     *  your score +12"); null when there is no match to continue. */
    val resume: String?,
    /** Something the player should know: the kept match could not be continued, the history
     *  could not be opened, a session failed to start. */
    val notice: String?,
    val setup: MatchSetup,
    val rules: List<ChoiceUi>,
    val levels: List<ChoiceUi>,
    /** The kept match cannot be resumed: the shell moves its file aside (kept for support)
     *  so the app does not try it again on every start. */
    val savedMatchUnusable: Boolean,
)

/** A match ready to play: the table's presenter, the setup to keep with it, whether it is the
 *  kept match continued (otherwise the shell forgets the kept one) and anything to tell. */
class MatchInPlay(
    val presenter: TablePresenter,
    val setup: MatchSetup?,
    val resumed: Boolean,
    val notice: String?,
)

/**
 * Before a match, as `tongcheng play` offers it: the kept match (`--resume`) or a new one with
 * the chosen rule set (`--rules`) and bot level (`--level`). The kept match is resumed right
 * away to check that it still can be, so the start screen never offers a broken one.
 */
class Lobby(saved: SavedMatch?, chosen: MatchSetup, private val history: HistoryStore?) : AutoCloseable {
    private var resumable: GameSession? = null
    private val savedSetup = saved?.setup
    private val savedMatchId = saved?.matchId

    var state: LobbyUi
        private set

    init {
        var notice: String? = null
        var unusable = false
        var resumeText: String? = null
        if (saved != null) {
            try {
                val s = GameSession.resume(saved.json)
                val t = s.table()
                if (t.matchFinished) {
                    s.close() // nothing left to play: the shell forgets it with the next match
                } else {
                    resumable = s
                    resumeText = describe(t, saved.setup)
                }
            } catch (e: TongchengException) {
                notice = "The kept match cannot be continued (${e.text}); it was set aside. Start a new match."
                unusable = true
            }
        }
        state = render(chosen, resumeText, notice, unusable)
    }

    fun choose(rules: RuleChoice): LobbyUi = chosen(state.setup.copy(rules = rules))

    fun choose(level: BotLevel): LobbyUi = chosen(state.setup.copy(level = level))

    /** Continues the kept match, saving its hands under the same match row; null when there is
     *  none (the screen then offers no "Continue"). */
    fun resume(): MatchInPlay? {
        val s = resumable ?: return null
        resumable = null
        val notice = attach(s, savedMatchId)
        state = state.copy(resume = null)
        return MatchInPlay(TablePresenter(s), savedSetup, resumed = true, notice = notice)
    }

    /** Starts a new match with the chosen setup and `seed` (the shell picks it at random). The
     *  kept match, if any, is given up. Null when the session cannot start; [state] says why. */
    fun startNew(seed: ULong): MatchInPlay? {
        val setup = state.setup
        val s = try {
            GameSession(setup.config(seed))
        } catch (e: TongchengException) {
            state = state.copy(notice = "The match cannot start: ${e.text}")
            return null
        }
        resumable?.close()
        resumable = null
        state = state.copy(resume = null)
        return MatchInPlay(TablePresenter(s), setup, resumed = false, notice = attach(s, null))
    }

    /** Frees the kept match's session if it was not resumed. */
    override fun close() {
        resumable?.close()
        resumable = null
    }

    private fun chosen(setup: MatchSetup): LobbyUi {
        state = render(setup, state.resume, state.notice, state.savedMatchUnusable)
        return state
    }

    /** Saves the session's finished hands to the history: under the kept match row when there
     *  is one (a history reset since then has lost it: a new row is started). */
    private fun attach(s: GameSession, matchId: Long?): String? {
        val h = history ?: return null
        if (matchId != null) {
            try {
                s.continueSavingTo(h, matchId)
                return null
            } catch (e: TongchengException) {
                // Not in this history any more: the hands from now on go under a new row.
            }
        }
        return try {
            s.saveTo(h)
            null
        } catch (e: TongchengException) {
            "Hands of this match will not be saved: ${e.text}"
        }
    }

    companion object {
        fun render(setup: MatchSetup, resume: String?, notice: String?, unusable: Boolean) = LobbyUi(
            resume = resume,
            notice = notice,
            setup = setup,
            rules = RuleChoice.entries.map { ChoiceUi(it.title, it.detail, it == setup.rules) },
            levels = BotLevel.entries.map { ChoiceUi(it.title, it.detail, it == setup.level) },
            savedMatchUnusable = unusable,
        )

        /** How the start screen names a kept match. */
        fun describe(t: TableModel, setup: MatchSetup?): String {
            val where = if (t.finished) {
                "after hand ${t.handNumber}"
            } else {
                "hand ${t.handNumber}, ${tiles(t.wallRemaining.toInt())} in the wall"
            }
            val score = t.seats.firstOrNull { it.isYou }?.score ?: 0
            return listOfNotNull(setup?.title, where, "your score ${signed(score.toLong())}").joinToString(" · ")
        }

        fun tiles(n: Int) = if (n == 1) "1 tile" else "$n tiles"

        /** "+12", "−4" (a real minus sign), "0". */
        fun signed(v: Long): String = when {
            v > 0 -> "+$v"
            v < 0 -> "−${-v}"
            else -> "0"
        }
    }
}
