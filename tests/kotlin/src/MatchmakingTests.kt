// The queue, private room and rating screens through the presenter, against a real
// tongcheng-server process (short bot-fill wait and pause between hands, so a lone player is
// seated with bots in about a second).

import com.tongcheng.core.*
import com.tongcheng.presenter.*
import java.io.File
import kotlin.concurrent.thread

class MemoryVault : KeyVault {
    var secret: ByteArray? = null
    override fun loadSecret(): ByteArray? = secret
    override fun storeSecret(secret: ByteArray) { this.secret = secret }
}

/** Runs [body] with a server started with [flags] (its output drained so it never blocks). */
fun withServer(vararg flags: String, body: (url: String, dir: File) -> Unit) {
    val dir = tempDir("matchmaking")
    val server = ProcessBuilder(
        listOf(
            System.getProperty("tongcheng.server"), "--listen", "127.0.0.1:0",
            "--database", "sqlite:" + File(dir, "server.db").path,
        ) + flags,
    ).redirectErrorStream(true).start()
    try {
        val out = server.inputStream.bufferedReader()
        val first = out.readLine() ?: error("the server printed nothing")
        val url = Regex("http://[0-9.:]+").find(first)?.value ?: error("no address in: $first")
        thread(isDaemon = true) { out.forEachLine {} }
        body(url, dir)
    } finally {
        server.destroy()
        server.waitFor()
        dir.deleteRecursively()
    }
}

/** Reads updates until the Joined one (the table's seats). */
fun joined(s: OnlineSession): OnlineUpdateModel.Joined {
    val until = System.currentTimeMillis() + 20_000
    while (System.currentTimeMillis() < until) {
        when (val u = s.nextUpdate(200uL)) {
            is OnlineUpdateModel.Joined -> return u
            is OnlineUpdateModel.Error, is OnlineUpdateModel.Disconnected -> error("instead of joining: $u")
            else -> {}
        }
    }
    error("never joined")
}

fun matchmakingTests() {
    test("the rating screen's lines: a line per rule set, tiers named, provisional and unrated shown") {
        val rows = RatingsPresenter.rows(
            listOf(
                RatingModel("hangzhou", 27.46, 3.12, 18.1, 14, false, 10, "gold"),
                RatingModel("guobiao", 25.9, 7.5, 3.4, 3, true, 10, null),
                RatingModel("sichuan", 22.0, 2.0, 16.0, 40, false, 10, "platinum"),
            ),
        )
        check(rows.map { it.rules } == RuleChoice.entries.map { it.title } + "sichuan") { "rows: $rows" }
        check(rows[0].tier == "Provisional 3 of 10" && rows[0].rating == "25.9" && rows[0].games == 3L) { "${rows[0]}" }
        check(rows[0].detail == "3 rated matches · ±7.5") { rows[0].detail }
        check(rows[1].tier == "Gold 黄金" && rows[1].rating == "27.5" && !rows[1].provisional) { "${rows[1]}" }
        check(rows[2].tier == "Unrated" && rows[2].rating == "—" && rows[2].games == 0L) { "${rows[2]}" }
        check(rows[3].tier == "Platinum 铂金") { "${rows[3]}" }
        check(waitedText(0) == "0:00" && waitedText(9_999) == "0:09" && waitedText(61_000) == "1:01") { "clock" }
    }

    test("room codes and settings are checked before anything is sent") {
        for (bad in listOf("12a", "abcdef", "12-456")) {
            check(RoomPresenter.codeError(bad) == "A room code has only digits") { bad }
        }
        check(RoomPresenter.codeError("1234567") == "A room code has 6 digits") { "too long" }
        check(RoomPresenter.codeError("0429") == null && RoomPresenter.codeError("042917") == null) { "may become a code" }
        val two = RoomSetup().withPeople(2)
        check(two.bots == listOf(BotLevel.NORMAL, BotLevel.NORMAL) && two.withPeople(3).bots.size == 1) { "bot seats" }
        check(two.settings().bots == listOf("normal", "normal") && two.settings().people.toInt() == 2) { "the request" }
        for (bad in listOf(RoomSetup(people = 2), RoomSetup(hands = 17), RoomSetup(claimSecs = 2))) {
            try {
                bad.settings()
                error("$bad was accepted")
            } catch (e: IllegalArgumentException) {}
        }
        // The library refuses them too, with nobody listening (a request would be a network error).
        val scratch = tempDir("novalid")
        HistoryStore.open(File(scratch, "h.db").path).use { store ->
            OnlineClient("http://127.0.0.1:9", MemoryVault(), store).use { c ->
                for (code in listOf("12345", "1234567", "12a456", "../../x")) {
                    try {
                        c.joinRoom(code)
                        error("joined with $code")
                    } catch (e: TongchengException.InvalidInput) {
                        check(e.detail.contains("6 digits")) { "detail: ${e.detail}" }
                    }
                }
                try {
                    c.createRoom(RoomSettingsModel(null, null, null, null, null, 5u, emptyList()))
                    error("a room of 5")
                } catch (e: TongchengException.InvalidInput) {}
                try {
                    c.createRoom(RoomSettingsModel(null, null, null, null, null, 3u, listOf("expert")))
                    error("an unknown level")
                } catch (e: TongchengException.InvalidInput) {}
            }
        }
        scratch.deleteRecursively()
    }

    withServer("--bot-fill-ms", "1500", "--ready-ms", "300") { url, dir ->
        fun phone(name: String): Pair<OnlineClient, AccountModel> {
            val store = HistoryStore.open(File(dir, "$name.db").path)
            val c = OnlineClient(url, MemoryVault(), store)
            store.close()
            return c to c.login(name, null)
        }

        test("queue: the wait ticks and can be left; a casual and a ranked player are seated with bots and sit down") {
            val (c, _) = phone("queuer")
            c.use {
                QueuePresenter(c).use { q ->
                    check(q.state.canStart && !q.state.waiting && q.state.status == null) { "${q.state}" }
                    check(q.state.kinds.single { it.selected }.label == "Casual") { "casual by default" }
                    var ui = q.start()
                    check(ui.waiting && ui.canCancel && !ui.canStart) { "waiting: $ui" }
                    check(q.choose(RuleChoice.HANGZHOU).rules.single { it.selected }.label == RuleChoice.GUOBIAO.title) {
                        "the rules stay fixed while waiting"
                    }
                    Thread.sleep(300) // the server holds the place by now
                    ui = q.cancel()
                    check(!ui.waiting && ui.notice == "You left the queue." && q.takeTable() == null) { "left: $ui" }
                    // The place is really given up: the next player is seated alone, not with
                    // the one who left.
                    val (o, _) = phone("next")
                    o.use {
                        QueuePresenter(o).use { next ->
                            var nu = next.start()
                            val until0 = System.currentTimeMillis() + 30_000
                            while (nu.waiting && System.currentTimeMillis() < until0) nu = next.poll(200)
                            check(nu.seated == "国标 Guobiao · casual · 1 person, 3 bots") { "the next player: $nu" }
                        }
                    }

                    ui = q.start()
                    val waited = mutableListOf<Long>()
                    val statuses = mutableListOf<String>()
                    val until = System.currentTimeMillis() + 30_000
                    while (ui.waiting && System.currentTimeMillis() < until) {
                        ui = q.poll(200)
                        if (ui.waiting) {
                            waited.add(ui.waitedMs)
                            statuses.add(ui.status!!)
                        }
                    }
                    check(ui.seated == "国标 Guobiao · casual · 1 person, 3 bots") { "seated: $ui" }
                    check(ui.notice == null && !ui.waiting && ui.status == null) { "$ui" }
                    check(waited.size >= 3 && waited == waited.sorted() && waited.last() >= 1000) { "the clock ticks: $waited" }
                    check(statuses.first() == "Waiting 0:00 · 国标 Guobiao · casual") { statuses.first() }
                    check(statuses.last().startsWith("Waiting 0:01")) { statuses.last() }
                    val table = q.takeTable() ?: error("a table")
                    check(q.takeTable() == null) { "handed over once" }
                    table.session.use { s ->
                        val j = joined(s)
                        check(j.table == table.table && j.players.count { it.endsWith("(bot)") } == 3) { "joined: $j" }
                        // The online table flow goes on: the first decision is answered.
                        val until2 = System.currentTimeMillis() + 30_000
                        var answered = false
                        while (!answered && System.currentTimeMillis() < until2) {
                            val u = s.nextUpdate(200uL)
                            if (u is OnlineUpdateModel.Decision) {
                                s.act(u.pending.onTimeout)
                                answered = true
                            }
                        }
                        check(answered) { "a decision at the queued table" }
                    }

                    q.chooseRanked(true)
                    ui = q.start()
                    check(ui.status == "Waiting 0:00 · 国标 Guobiao · ranked") { "${ui.status}" }
                    val until3 = System.currentTimeMillis() + 30_000
                    while (ui.waiting && System.currentTimeMillis() < until3) ui = q.poll(200)
                    check(ui.seated == "国标 Guobiao · ranked · 1 person, 3 bots") { "ranked: $ui" }
                    // Not taken: closing the presenter closes the table's session.
                }
            }
        }

        test("private room: made with its settings, joined by code from a second account, full to a third, same-IP warned") {
            val (a, accA) = phone("owner")
            val (b, accB) = phone("friend")
            val (c, _) = phone("stranger")
            val owner = RoomPresenter(a, accA.accountId)
            var ui = owner.choosePeople(2)
            check(ui.botSeats == listOf("Bot 1: Normal", "Bot 2: Normal")) { "${ui.botSeats}" }
            check(ui.people.single { it.selected }.label == "2 people") { "${ui.people}" }
            ui = owner.chooseBot(1, BotLevel.HARD)
            check(ui.botSeats[1] == "Bot 2: Hard") { "${ui.botSeats}" }
            check(owner.chooseBot(5, BotLevel.EASY).notice == "There is no bot seat 6") { "no such seat" }
            owner.chooseHands(1)
            owner.chooseDiscardSecs(10)
            ui = owner.chooseClaimSecs(5)
            check(ui.setup == RoomSetup(hands = 1, discardSecs = 10, claimSecs = 5, people = 2, bots = listOf(BotLevel.NORMAL, BotLevel.HARD))) { "${ui.setup}" }
            ui = owner.create()
            val code = ui.code ?: error("no code: ${ui.notice}")
            check(Regex("[0-9]{6}").matches(code)) { "code $code" }
            check(ui.joined?.startsWith("1 of 2 people is in: ") == true && !ui.full && ui.sameIpWarning == null) { "$ui" }
            check(owner.choosePeople(4).setup.people == 2) { "the settings stay once the room is made" }

            val friend = RoomPresenter(b, accB.accountId)
            ui = friend.typeCode("12a")
            check(ui.codeError == "A room code has only digits" && !ui.canJoin) { "$ui" }
            ui = friend.join()
            check(ui.code == null && ui.notice == null) { "nothing sent: $ui" }
            ui = friend.typeCode("1234")
            check(ui.codeError == null && !ui.canJoin) { "$ui" }
            check(friend.typeCode("1234567").codeError == "A room code has 6 digits") { "too long" }
            val wrong = if (code == "000000") "000001" else "000000"
            friend.typeCode(wrong)
            ui = friend.join()
            check(ui.code == null && ui.notice == "No room has that code. Check the 6 digits with your friend.") { "$ui" }
            ui = friend.typeCode(code.substring(0, 3) + " " + code.substring(3))
            check(ui.canJoin && ui.codeInput == code) { "$ui" }
            ui = friend.join()
            check(ui.code == code && ui.joined?.startsWith("2 of 2 people are in: ") == true && ui.full && ui.notice == null) { "$ui" }
            check(ui.sameIpWarning?.contains("you and player ${accA.accountId}") == true) { "warned: ${ui.sameIpWarning}" }
            ui = owner.refresh()
            check(ui.joined?.startsWith("2 of 2 people are in: ") == true && ui.full) { "$ui" }
            check(ui.sameIpWarning?.contains("you and player ${accB.accountId}") == true) { "warned: ${ui.sameIpWarning}" }
            check(ui.sameIpWarning!!.contains("同IP")) { ui.sameIpWarning!! }

            val stranger = RoomPresenter(c, 0)
            stranger.typeCode(code)
            ui = stranger.join()
            check(ui.code == null && ui.notice == "Every seat in this room is taken.") { "$ui" }

            // Seats are listed as they are at one's arrival: the friend, arriving last, sees both
            // people and the owner's two bots.
            val first = owner.sitDown() ?: error("owner: ${owner.state.notice}")
            first.session.use { s ->
                val j = joined(s)
                check(j.table == first.table && j.players.size == 4 && accA.displayName in j.players) { "owner joined: $j" }
                val last = friend.sitDown() ?: error("friend: ${friend.state.notice}")
                last.session.use { f ->
                    val k = joined(f)
                    check(k.table == first.table && k.players.count { it.endsWith("(bot)") } == 2) { "friend joined: $k" }
                    check(accA.displayName in k.players && accB.displayName in k.players) { "both people: $k" }
                }
            }
            check(stranger.sitDown() == null) { "no room, no seat" }
            listOf(a, b, c).forEach { it.close() }
        }

        test("ratings screen for a fresh account: every rule set unrated; without a login the screen says so") {
            val (a, _) = phone("fresh")
            a.use {
                val p = RatingsPresenter(a)
                val ui = p.load()
                check(ui.notice == null) { "notice: ${ui.notice}" }
                check(ui.rows.map { it.rules } == RuleChoice.entries.map { it.title }) { "${ui.rows}" }
                check(ui.rows.all { it.tier == "Unrated" && it.rating == "—" && it.games == 0L && it.provisional }) { "${ui.rows}" }
                check(a.ratings().isEmpty()) { "the server has none" }
            }
            HistoryStore.open(File(dir, "out.db").path).use { store ->
                OnlineClient(url, MemoryVault(), store).use { nobody ->
                    val ui = RatingsPresenter(nobody).load()
                    check(ui.notice == "Your session has ended: log in again.") { "${ui.notice}" }
                    QueuePresenter(nobody).use { q ->
                        var qu = q.start()
                        val until = System.currentTimeMillis() + 10_000
                        while (qu.waiting && System.currentTimeMillis() < until) qu = q.poll(200)
                        check(!qu.waiting && qu.notice == "Your session has ended: log in again.") { "$qu" }
                    }
                }
            }
        }
    }
}
