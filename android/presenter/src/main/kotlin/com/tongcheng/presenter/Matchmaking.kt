package com.tongcheng.presenter

import com.tongcheng.core.OnlineClient
import com.tongcheng.core.OnlineSession
import com.tongcheng.core.QueueTicket
import com.tongcheng.core.RatingModel
import com.tongcheng.core.RoomModel
import com.tongcheng.core.RoomSettingsModel
import com.tongcheng.core.SeatedModel
import com.tongcheng.core.TongchengException
import java.util.Locale

// The screens around online play: the queue, private rooms by code, and ratings. Every call
// to the client blocks on the network: the shells call these presenters off the UI thread
// and draw the returned state.

/** "0:07", "1:23", "12:05": how long the player has waited. */
fun waitedText(ms: Long): String {
    val s = (ms.coerceAtLeast(0) / 1000)
    return "${s / 60}:${(s % 60).toString().padStart(2, '0')}"
}

/** What to tell the player about a failed request: the server's stable codes in plain words. */
fun notice(e: TongchengException): String = when (e) {
    is TongchengException.Network -> "Cannot reach the server. Check the connection and try again."
    is TongchengException.NotLoggedIn -> "Your session has ended: log in again."
    is TongchengException.NotFound -> "No room has that code. Check the 6 digits with your friend."
    is TongchengException.InvalidInput -> e.detail.replaceFirstChar { it.uppercase() }
    else -> when (e.serverCode) {
        "queue_timeout" -> "No table could be made in time. Try again."
        "queue_replaced" -> "You queued again from another device, so this wait ended."
        "rules_not_accepted" -> "This server does not play these rules."
        "room_full" -> "Every seat in this room is taken."
        "bad_room" -> "The server refused these room settings: ${e.text}"
        else -> e.text
    }
}

private fun people(n: Int) = if (n == 1) "1 person" else "$n people"

private fun bots(n: Int) = if (n == 1) "1 bot" else "$n bots"

/** A table found (by the queue or a room) and sat down at: the online session, handed to the
 *  online table flow, which owns (and closes) it from then on. */
class SeatedTable(val table: String, val title: String, val session: OnlineSession)

// ---------------------------------------------------------------- queue

/** The queue screen: rules and ranked/casual, then the waiting state, then the table. */
data class QueueUi(
    val rules: List<ChoiceUi>,
    /** Casual, ranked. */
    val kinds: List<ChoiceUi>,
    val waiting: Boolean,
    /** "Waiting 0:12 · 国标 Guobiao · ranked" while waiting. */
    val status: String?,
    val waitedMs: Long,
    val canStart: Boolean,
    val canCancel: Boolean,
    /** The table found: "国标 Guobiao · casual · 1 person, 3 bots". */
    val seated: String?,
    val notice: String?,
)

/**
 * The matchmaking queue. [start] joins it, [poll] (called every ~250 ms by the screen, off
 * the UI thread) ticks the waiting time and, once the server seats the player, sits down at
 * the table; [takeTable] then hands the online session to the table flow. [cancel] gives the
 * place up (the server takes the player out of the queue).
 */
class QueuePresenter(
    private val client: OnlineClient,
    private var rules: RuleChoice = RuleChoice.GUOBIAO,
    private var ranked: Boolean = false,
) : AutoCloseable {
    private var ticket: QueueTicket? = null
    private var found: SeatedTable? = null

    var state: QueueUi = render(waitedMs = 0, seated = null, notice = null)
        private set

    /** Rules and kind are fixed while waiting (the place is in that rule set's queue). */
    fun choose(rules: RuleChoice): QueueUi {
        if (ticket == null) this.rules = rules
        return rerender()
    }

    fun chooseRanked(ranked: Boolean): QueueUi {
        if (ticket == null) this.ranked = ranked
        return rerender()
    }

    /** Joins the queue with the chosen rules and kind. */
    fun start(): QueueUi {
        if (ticket != null || found != null) return state
        return try {
            ticket = client.queue(rules.preset, ranked)
            render(waitedMs = 0, seated = null, notice = null)
        } catch (e: TongchengException) {
            render(waitedMs = 0, seated = null, notice = notice(e))
        }
    }

    /** Waits up to [timeoutMs] for a table; sits down at it when one is found. */
    fun poll(timeoutMs: Long = 250): QueueUi {
        val t = ticket ?: return state
        val seated = try {
            t.waitForTable(timeoutMs.coerceAtLeast(0).toULong())
                ?: return render(waitedMs = t.waitedMs().toLong(), seated = null, notice = null)
        } catch (e: TongchengException) {
            drop()
            return render(waitedMs = 0, seated = null, notice = notice(e))
        }
        drop()
        return sitDown(seated)
    }

    /** Gives the place up. When a table was found at that very moment the player is seated
     *  instead (the others at that table are waiting for him). */
    fun cancel(): QueueUi {
        val t = ticket ?: return state
        if (!t.cancel()) return poll(0)
        drop()
        return render(waitedMs = 0, seated = null, notice = "You left the queue.")
    }

    /** The table found, once: the caller's table flow owns its session from now on. */
    fun takeTable(): SeatedTable? = found.also { found = null }

    override fun close() {
        drop()
        found?.session?.close()
        found = null
    }

    private fun drop() {
        ticket?.close()
        ticket = null
    }

    private fun sitDown(s: SeatedModel): QueueUi {
        val title = seatedText(s)
        return try {
            found = SeatedTable(s.table, title, client.play(s.table, s.people, null))
            render(waitedMs = 0, seated = title, notice = null)
        } catch (e: TongchengException) {
            render(waitedMs = 0, seated = null, notice = notice(e))
        }
    }

    private fun rerender(): QueueUi = render(state.waitedMs, state.seated, state.notice)

    private fun render(waitedMs: Long, seated: String?, notice: String?): QueueUi {
        val waiting = ticket != null
        state = QueueUi(
            rules = RuleChoice.entries.map { ChoiceUi(it.title, it.detail, it == rules) },
            kinds = listOf(
                ChoiceUi("Casual", "Any players; no rating", !ranked),
                ChoiceUi("Ranked", "Players near your rating; the result moves it", ranked),
            ),
            waiting = waiting,
            status = if (waiting) "Waiting ${waitedText(waitedMs)} · ${rules.title} · ${kind(ranked)}" else null,
            waitedMs = if (waiting) waitedMs else 0,
            canStart = !waiting && found == null,
            canCancel = waiting,
            seated = seated,
            notice = notice,
        )
        return state
    }

    companion object {
        fun kind(ranked: Boolean) = if (ranked) "ranked" else "casual"

        /** "国标 Guobiao · casual · 1 person, 3 bots". */
        fun seatedText(s: SeatedModel): String {
            val title = RuleChoice.ofPreset(s.rules)?.title ?: s.rules
            return "$title · ${kind(s.ranked)} · ${people(s.people.toInt())}, ${bots(s.bots.toInt())}"
        }
    }
}

// ---------------------------------------------------------------- private rooms

/** What the owner of a private room picks: rules, hands, time limits, people and the bots'
 *  levels for the seats nobody is invited to. */
data class RoomSetup(
    val rules: RuleChoice = RuleChoice.GUOBIAO,
    val hands: Int = 4,
    val discardSecs: Int = 15,
    val claimSecs: Int = 8,
    /** People invited, the owner included (1–4). */
    val people: Int = 4,
    /** One level per bot seat: exactly 4 − people. */
    val bots: List<BotLevel> = emptyList(),
) {
    /** The request, or why it cannot be made (the choices the screen offers are all valid;
     *  this guards the rest, e.g. a setup kept from an older version). */
    fun settings(): RoomSettingsModel {
        require(people in 1..4) { "A room has 1 to 4 people" }
        require(bots.size == 4 - people) { "Choose a level for each of the ${4 - people} bots" }
        require(hands in 1..MAX_HANDS) { "A room plays 1 to $MAX_HANDS hands" }
        require(discardSecs in SECS && claimSecs in SECS) { "Time limits are ${SECS.first} to ${SECS.last} seconds" }
        return RoomSettingsModel(
            rules = rules.preset,
            hands = hands.toUByte(),
            firstDiscardSecs = null,
            discardSecs = discardSecs.toUShort(),
            claimSecs = claimSecs.toUShort(),
            people = people.toUByte(),
            bots = bots.map { it.code },
        )
    }

    /** With [n] people: bot seats added (normal) or removed to match. */
    fun withPeople(n: Int): RoomSetup {
        val k = n.coerceIn(1, 4)
        val seats = 4 - k
        return copy(people = k, bots = bots.take(seats) + List((seats - bots.size).coerceAtLeast(0)) { BotLevel.NORMAL })
    }

    companion object {
        /** The server's limits (`server/src/play/rooms.rs`). */
        const val MAX_HANDS = 16
        val SECS = 3..120
        val HAND_CHOICES = listOf(1, 4, 8, 16)
        val DISCARD_CHOICES = listOf(10, 15, 20, 30)
        val CLAIM_CHOICES = listOf(5, 8, 10, 15)
    }
}

/** The private room screen: the owner's choices, then the code and who is in; or a code to
 *  type to join a friend's room. */
data class RoomUi(
    val setup: RoomSetup,
    val people: List<ChoiceUi>,
    val hands: List<ChoiceUi>,
    val discardSecs: List<ChoiceUi>,
    val claimSecs: List<ChoiceUi>,
    /** "Bot 1: Hard", one per bot seat. */
    val botSeats: List<String>,
    /** The room's 6-digit code, once made or joined. */
    val code: String?,
    /** "2 of 3 people are in: Lin, Wang". */
    val joined: String?,
    val full: Boolean,
    /** 同IP提醒: accounts in the room that joined from one network. */
    val sameIpWarning: String?,
    val codeInput: String,
    val codeError: String?,
    val canJoin: Boolean,
    val notice: String?,
)

/**
 * Private rooms (开房). The owner picks the setup and [create]s the room, gets its code, and
 * [refresh]es to see who joined; a friend types the code ([typeCode] checks it as it is typed)
 * and [join]s. Everyone admitted then [sitDown]s at the room's table. [you] is this account's
 * id (from login), so the same-network warning can say "you".
 */
class RoomPresenter(private val client: OnlineClient, private val you: Long) {
    private var setup = RoomSetup()
    private var room: RoomModel? = null
    private var input = ""

    var state: RoomUi = render(null)
        private set

    fun choose(rules: RuleChoice): RoomUi = set(setup.copy(rules = rules))
    fun choosePeople(n: Int): RoomUi = set(setup.withPeople(n))
    fun chooseHands(n: Int): RoomUi = set(setup.copy(hands = n))
    fun chooseDiscardSecs(n: Int): RoomUi = set(setup.copy(discardSecs = n))
    fun chooseClaimSecs(n: Int): RoomUi = set(setup.copy(claimSecs = n))

    /** The level of bot seat [seat] (0-based among the bot seats). */
    fun chooseBot(seat: Int, level: BotLevel): RoomUi {
        if (seat !in setup.bots.indices) return render("There is no bot seat ${seat + 1}")
        return set(setup.copy(bots = setup.bots.toMutableList().also { it[seat] = level }))
    }

    /** Makes the room: its code is then on the screen to give to friends. */
    fun create(): RoomUi {
        val settings = try {
            setup.settings()
        } catch (e: IllegalArgumentException) {
            return render(e.message)
        }
        return ask { client.createRoom(settings) }
    }

    /** The code as typed: spaces are ignored ("042 917"); anything but digits, or more than
     *  six, is an error at once; six digits enable Join. */
    fun typeCode(text: String): RoomUi {
        input = text.filterNot { it.isWhitespace() }
        return render(state.notice)
    }

    /** Joins the room of the typed code; nothing is sent unless it is six digits. */
    fun join(): RoomUi {
        if (codeError(input) != null || input.length != 6) return render(null)
        return ask { client.joinRoom(input) }
    }

    /** The room as it is now (who joined, same-network pairs). */
    fun refresh(): RoomUi {
        val code = room?.code ?: return state
        return ask { client.room(code) }
    }

    /** Sits down at the room's table: the online session, for the table flow (which closes
     *  it). Null before a room is made or joined, or when the table cannot be reached. */
    fun sitDown(): SeatedTable? {
        val r = room ?: return null
        return try {
            SeatedTable(r.table, "Room ${r.code}", client.play(r.table, r.people, null))
        } catch (e: TongchengException) {
            render(notice(e))
            null
        }
    }

    private fun ask(call: () -> RoomModel): RoomUi = try {
        room = call()
        render(null)
    } catch (e: TongchengException) {
        render(notice(e))
    }

    private fun set(s: RoomSetup): RoomUi {
        if (room == null) setup = s
        return render(state.notice)
    }

    private fun render(notice: String?): RoomUi {
        val r = room
        val error = codeError(input)
        state = RoomUi(
            setup = setup,
            people = (1..4).map { n ->
                ChoiceUi(if (n == 1) "Just me" else people(n), if (n == 4) "No bots" else "and ${bots(4 - n)}", n == setup.people)
            },
            hands = RoomSetup.HAND_CHOICES.map { ChoiceUi(if (it == 1) "1 hand" else "$it hands", "", it == setup.hands) },
            discardSecs = RoomSetup.DISCARD_CHOICES.map { ChoiceUi("$it s", "to discard", it == setup.discardSecs) },
            claimSecs = RoomSetup.CLAIM_CHOICES.map { ChoiceUi("$it s", "to claim", it == setup.claimSecs) },
            botSeats = setup.bots.mapIndexed { i, b -> "Bot ${i + 1}: ${b.title}" },
            code = r?.code,
            joined = r?.let {
                val names = if (it.players.isEmpty()) "" else ": " + it.players.joinToString(", ")
                "${it.admitted} of ${people(it.people.toInt())} ${if (it.admitted.toInt() == 1) "is" else "are"} in$names"
            },
            full = r != null && r.admitted >= r.people,
            sameIpWarning = r?.let { sameIp(it, you) },
            codeInput = input,
            codeError = error,
            canJoin = error == null && input.length == 6,
            notice = notice,
        )
        return state
    }

    companion object {
        /** Why the typed code cannot be a room code yet; null while it may still become one. */
        fun codeError(code: String): String? = when {
            code.any { it !in '0'..'9' } -> "A room code has only digits"
            code.length > 6 -> "A room code has 6 digits"
            else -> null
        }

        /** 同IP提醒 in words: "You and player 12 joined from the same network (同IP)". */
        fun sameIp(r: RoomModel, you: Long): String? {
            if (r.sameIp.isEmpty()) return null
            val pairs = r.sameIp.map { p ->
                val (a, b) = if (p.second == you) p.second to p.first else p.first to p.second
                if (a == you) "you and player $b" else "players $a and $b"
            }
            return "Same network (同IP): " + pairs.joinToString("; ") +
                ". Friends at home share one; in a room with strangers it can mean they play together."
        }
    }
}

// ---------------------------------------------------------------- ratings

/** One rule set's line on the rating screen. */
data class RatingRowUi(
    val rules: String,
    /** "27.5", or "—" before any rated match. */
    val rating: String,
    /** "Gold 黄金", "Provisional 3 of 10", "Unrated". */
    val tier: String,
    val provisional: Boolean,
    val games: Long,
    /** "14 rated matches · ±3.1". */
    val detail: String,
)

data class RatingsUi(val rows: List<RatingRowUi>, val notice: String?)

/** The rating screen: per rule set the rating, tier (none while provisional) and rated
 *  matches. Every rule set the app knows has a line, rated or not. */
class RatingsPresenter(private val client: OnlineClient) {
    var state = RatingsUi(rows(emptyList()), null)
        private set

    fun load(): RatingsUi {
        state = try {
            RatingsUi(rows(client.ratings()), null)
        } catch (e: TongchengException) {
            state.copy(notice = notice(e))
        }
        return state
    }

    companion object {
        val TIERS = mapOf(
            "bronze" to "Bronze 青铜",
            "silver" to "Silver 白银",
            "gold" to "Gold 黄金",
            "platinum" to "Platinum 铂金",
            "diamond" to "Diamond 钻石",
            "master" to "Master 大师",
        )

        fun rows(ratings: List<RatingModel>): List<RatingRowUi> {
            val byRules = ratings.associateBy { it.rules }
            val known = RuleChoice.entries.map { it.title to byRules[it.preset] }
            val other = ratings.filter { RuleChoice.ofPreset(it.rules) == null }.map { it.rules to it }
            return (known + other).map { (title, r) -> row(title, r) }
        }

        private fun row(title: String, r: RatingModel?): RatingRowUi {
            if (r == null || r.games == 0L) {
                return RatingRowUi(title, "—", "Unrated", provisional = true, games = 0, detail = "No rated matches yet")
            }
            val matches = if (r.games == 1L) "1 rated match" else "${r.games} rated matches"
            val t = r.tier
            val provisional = if (r.provisionalGames > 0) "Provisional ${r.games} of ${r.provisionalGames}" else "Provisional"
            val tier = if (r.provisional || t == null) provisional else TIERS[t] ?: t.replaceFirstChar { it.uppercase() }
            return RatingRowUi(
                rules = title,
                rating = String.format(Locale.ROOT, "%.1f", r.mu),
                tier = tier,
                provisional = r.provisional,
                games = r.games,
                detail = "$matches · ±${String.format(Locale.ROOT, "%.1f", r.sigma)}",
            )
        }
    }
}
