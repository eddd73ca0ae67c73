// JVM tests of the phone boundary: the real Rust library through the generated bindings, as
// Android will run them (the app model's journeys in AppModelTests.kt, the engine's API here). A tiny harness (no JUnit on this
// machine): each test is a function; the run ends with "N passed, M failed".

import com.tongcheng.core.*
import java.io.File

val results = mutableListOf<Pair<String, Throwable?>>()

fun test(name: String, body: () -> Unit) {
    val t = try {
        body(); null
    } catch (e: Throwable) {
        e
    }
    results.add(name to t)
    println((if (t == null) "ok   " else "FAIL ") + name + (t?.let { ": $it" } ?: ""))
}

fun check(cond: Boolean, msg: () -> String) {
    if (!cond) throw AssertionError(msg())
}

/** The time the sessions are driven by: a monotonic clock in milliseconds. */
val started = System.nanoTime()
fun now(): ULong = ((System.nanoTime() - started) / 1_000_000).toULong()

fun config(seed: ULong, full: Boolean = false, level: String = "normal") =
    SessionConfig(rules = "guobiao", level = level, seed = seed, fullMatch = full)

/** Plays the person's decisions from the table model until the hand ends: win if offered,
 *  else what the clock would do (the drawn tile discarded, claims passed). */
fun playHand(s: GameSession): TableModel {
    var t = s.advance(now())
    var guard = 0
    while (!t.finished) {
        check(guard++ < 500) { "the hand does not end" }
        val pending = t.pending ?: error("no decision to make but the hand is not over: $t")
        val a = pending.legal.firstOrNull { it is ActionModel.Win } ?: pending.onTimeout
        s.act(a, now())
        t = s.advance(now())
    }
    return t
}

fun rssKb(): Long = File("/proc/self/status").readLines()
    .first { it.startsWith("VmRSS:") }.split(Regex("\\s+"))[1].toLong()

fun main() {
    test("plays a whole hand against bots through the session") {
        GameSession(config(7u)).use { s ->
            playHand(s)
            check(s.result() != null) { "the result is there" }
        }
        GameSession(config(8u)).use { s ->
            playHand(s)
            val r = s.result() ?: error("a finished hand has a result")
            check(r.deltas.sum() == 0) { "payments sum to zero: ${r.deltas}" }
            check(r.hands.size == 4) { "every hand revealed" }
            check(s.recordJson()?.contains("\"actions\"") == true) { "the record is available" }
            val events = verifyRecord(s.recordJson()!!)
            check(events.isNotEmpty()) { "the record replays" }
        }
    }

    test("a hint ranks the discards and recommends a legal action") {
        GameSession(config(11u)).use { s ->
            s.advance(now())
            val t = s.table()
            check(t.pending?.kind == DecisionKindModel.TURN) { "the dealer starts" }
            val h = s.hint() ?: error("a hint on the human's turn")
            check(h.discards.isNotEmpty()) { "discards ranked" }
            check(h.reason.isNotBlank()) { "with a reason" }
            check(t.pending!!.legal.contains(h.recommended)) { "recommended ${h.recommended} is legal" }
        }
    }

    test("an illegal action is a typed exception with a message, and changes nothing") {
        GameSession(config(12u)).use { s ->
            s.advance(now())
            val before = s.table()
            val notHeld = listOf("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1s", "7z")
                .first { code -> before.hand.none { it.code == code } && before.drawn?.code != code }
            try {
                s.act(ActionModel.Discard(notHeld), now())
                error("discarding a tile not held must fail")
            } catch (e: TongchengException.IllegalAction) {
                check(e.detail.contains("not legal")) { "detail: ${e.detail}" }
            }
            try {
                s.act(ActionModel.Discard("9z"), now())
                error("bad notation must fail")
            } catch (e: TongchengException.InvalidInput) {
                check(e.detail.contains("not a tile")) { "detail: ${e.detail}" }
            }
            check(s.table() == before) { "state unchanged" }
        }
        try {
            GameSession(SessionConfig("nope", "normal", 1u, false))
            error("unknown rules must fail")
        } catch (e: TongchengException.InvalidInput) {
            check(e.detail.contains("unknown rules")) { e.detail }
        }
    }

    test("the listener hears every change") {
        val events = mutableListOf<EventModel>()
        var tables = 0
        GameSession(config(13u)).use { s ->
            s.setListener(object : TableListener {
                override fun onEvent(event: EventModel) { events.add(event) }
                override fun onTable(table: TableModel) { tables++ }
            })
            playHand(s)
        }
        check(events.any { it.kind == EventKind.DISCARDED }) { "discards heard: ${events.size}" }
        check(events.any { it.kind == EventKind.WON || it.kind == EventKind.DRAW_GAME }) { "the end heard" }
        check(events.any { it.text.startsWith("You ") }) { "events read with the player's name" }
        check(tables > 3) { "table updates: $tables" }
        check(events.none { it.kind == EventKind.DREW && it.seat != 0.toUByte() && it.tile != null && !it.tile!!.code.endsWith("f") }) {
            "other seats' draws are hidden"
        }
    }

    test("a whole match: next_hand deals on") {
        GameSession(config(14u, full = true)).use { s ->
            playHand(s)
            check(s.nextHand()) { "a second hand" }
            check(s.table().handNumber == 2u) { "hand 2" }
        }
    }

    test("1,000 sessions opened and closed: memory stays flat") {
        fun churn(n: Int) = repeat(n) { i -> GameSession(config(i.toULong())).use { s -> s.advance(now()); s.table() } }
        // The JVM and malloc may step up once at any point (JIT code cache, a new arena: 14 MB
        // was seen in round 3 on a loaded machine); a leak instead grows every round. So: six
        // rounds of 1,000, and among the last four rounds at least one must leave the resident
        // memory within 1 MB of where it was (a leak of 1 kB per session would grow each round
        // by 1 MB), and the other three together, the one largest step set aside, grow less
        // than 6 MB.
        val rss = mutableListOf<Long>()
        repeat(6) {
            churn(1000)
            System.gc(); Thread.sleep(100)
            rss.add(rssKb())
        }
        println("     RSS after each 1,000 sessions: ${rss.joinToString(" ")} kB")
        val deltas = (2 until rss.size).map { rss[it] - rss[it - 1] }
        check(deltas.minOrNull()!! < 1_000) { "RSS grew every round: $deltas kB" }
        val steady = deltas.sorted().dropLast(1).sum()
        check(steady < 6_000) { "RSS grew by $steady kB over 4,000 sessions, besides one step: $deltas kB" }
    }

    // A measurement, not a timed pass/fail: the 50 ms target is reported, and only a
    // pathological slowdown (10x) fails, so a busy machine cannot make the suite flaky.
    test("1,000 FFI calls (table + act): measured against the 50 ms target") {
        // Warm up the library (tables are built on first use) and the JIT.
        repeat(20) { GameSession(config(99u)).use { s -> s.advance(now()); repeat(100) { s.table() } } }
        var calls = 0
        var elapsed = 0L
        var seed = 100uL
        while (calls < 1000) {
            GameSession(config(seed++)).use { s ->
                s.advance(now())
                while (calls < 1000 && !s.table().finished) {
                    val start = System.nanoTime()
                    val t = s.table()
                    val legal = t.pending!!.legal
                    val a = legal.firstOrNull { it is ActionModel.Win } ?: t.pending!!.onTimeout
                    s.act(a, now())
                    elapsed += System.nanoTime() - start
                    calls += 2
                    s.advance(now())
                }
            }
        }
        val ms = elapsed / 1_000_000.0
        println("     1000 FFI calls (table + act): %.1f ms (target ≤ 50 ms)".format(ms))
        check(ms <= 500.0) { "took $ms ms: far beyond the 50 ms target" }
    }

    historyTests()
    sessionHistoryTests()
    appModelTests()
    onlineTableTests()
    appModelOnlineTests()

    val failed = results.count { it.second != null }
    println("kotlin: ${results.size - failed} passed, $failed failed")
    if (failed > 0) kotlin.system.exitProcess(1)
}

fun historyTests() {
    test("saves hands to the history database and reads them back") {
        val dir = java.nio.file.Files.createTempDirectory("tongcheng-history").toFile()
        val path = File(dir, "history.db").path
        val ids = mutableListOf<Long>()
        HistoryStore.open(path).use { store ->
            val matchId = store.startMatch("guobiao", 0u, 1_700_000_000)
            for (seed in 20uL..22uL) {
                GameSession(config(seed)).use { s ->
                    playHand(s)
                    ids.add(store.saveHand(s.recordJson()!!, 0u, 1_700_000_000 + seed.toLong(), matchId))
                }
            }
            store.finishMatch(matchId, listOf(0, 0, 0, 0), 1_700_000_100)
        }
        // Reopen: everything is still there and replays.
        HistoryStore.open(path).use { store ->
            val hands = store.listHands(0u, 10u)
            check(hands.map { it.id }.toSet() == ids.toSet()) { "listed ${hands.map { it.id }} saved $ids" }
            val stats = store.stats()
            check(stats.hands == 3uL) { "stats over 3 hands: ${stats.hands}" }
            val record = store.getRecord(ids[0])
            check(record.contains("\"setup\"")) { "the full record" }
            val replay = store.replay(ids[0], 0u)
            check(replay.verified && replay.events.isNotEmpty()) { "replays" }
            try {
                store.getRecord(999_999)
                error("a missing id must fail")
            } catch (e: TongchengException.NotFound) {
                check(e.detail.isNotBlank()) { "with words" }
            }
        }
        // A corrupt file is a typed error and is left alone.
        val bad = File(dir, "bad.db").apply { writeText("this is not a database") }
        try {
            HistoryStore.open(bad.path)
            error("a corrupt file must fail")
        } catch (e: TongchengException.UnusableHistory) {
            check(bad.readText() == "this is not a database") { "the file is untouched" }
        }
        dir.deleteRecursively()
    }
}

fun sessionHistoryTests() {
    test("a match survives the app being killed: resume from savedJson, keep saving to the same match") {
        val dir = java.nio.file.Files.createTempDirectory("tongcheng-resume").toFile()
        val path = File(dir, "history.db").path
        HistoryStore.open(path).use { store ->
            var saved = ""
            var matchId = 0L
            var before: TableModel? = null
            GameSession(SessionConfig(rules = "guobiao", level = "normal", seed = 77u, fullMatch = true)).use { s ->
                s.saveTo(store)
                repeat(2) { playHand(s); check(s.nextHand()) { "the match goes on" } }
                val t = s.advance(now())
                s.act(t.pending!!.onTimeout, now())
                saved = s.savedJson()
                matchId = s.historyMatchId() ?: error("a match row after two hands")
                before = s.table()
            }
            // The process is gone; the shell kept savedJson and the match id.
            GameSession.resume(saved).use { s ->
                s.continueSavingTo(store, matchId)
                val after = s.table()
                check(after.handNumber == 3u) { "hand ${after.handNumber}" }
                check(after.hand == before!!.hand && after.seats == before!!.seats) { "the same table" }
                playHand(s)
                check(s.historyMatchId() == matchId) { "the same match row" }
            }
            val stored = store.listHands(0u, 100u)
            check(stored.size == 3) { "three hands stored, found ${stored.size}" }
            check(stored.all { it.matchId == matchId }) { "all under match $matchId" }
            try {
                GameSession.resume(saved.take(saved.length / 2)).close()
                error("a damaged save resumed")
            } catch (e: TongchengException.InvalidInput) {
                check(e.detail.contains("cannot be resumed")) { "detail: ${e.detail}" }
            }
        }
        dir.deleteRecursively()
    }

    test("one-tap login and sync through the FFI against the real server; the key stays in the shell's vault") {
        class Vault : KeyVault {
            var secret: ByteArray? = null
            var stored = 0
            override fun loadSecret(): ByteArray? = secret
            override fun storeSecret(secret: ByteArray) { this.secret = secret; stored++ }
        }
        val dir = java.nio.file.Files.createTempDirectory("tongcheng-online").toFile()
        val server = ProcessBuilder(
            System.getProperty("tongcheng.server"), "--listen", "127.0.0.1:0",
            "--database", "sqlite:" + File(dir, "server.db").path,
        ).redirectErrorStream(true).start()
        try {
            val first = server.inputStream.bufferedReader().readLine() ?: error("the server printed nothing")
            val url = Regex("http://[0-9.:]+").find(first)?.value ?: error("no address in: $first")
            val vaultA = Vault()
            HistoryStore.open(File(dir, "a.db").path).use { a ->
                HistoryStore.open(File(dir, "b.db").path).use { b ->
                    GameSession(config(41u)).use { s -> s.saveTo(a); playHand(s) }
                    check(a.listHands(0u, 10u).size == 1) { "a hand to sync" }
                    OnlineClient(url, vaultA, a).use { phoneA ->
                        val account = phoneA.login("phone A", null)
                        check(account.created) { "the first login makes the account" }
                        check(vaultA.secret?.size == 32 && vaultA.stored == 1) { "the key went to the vault once" }
                        val up = phoneA.sync()
                        check(up.uploaded == 1uL && up.rejected.isEmpty()) { "uploaded: $up" }
                        check(phoneA.sync().uploaded == 0uL) { "nothing sent twice" }
                        val code = phoneA.linkCode()
                        OnlineClient(url, Vault(), b).use { phoneB ->
                            val joined = phoneB.login("phone B", code)
                            check(joined.accountId == account.accountId && !joined.created) { "joined: $joined" }
                            val down = phoneB.sync()
                            check(down.pulled == 1uL) { "pulled: $down" }
                            try {
                                OnlineClient(url, Vault(), b).use { it.login("phone C", code) }
                                error("a used link code worked again")
                            } catch (e: TongchengException.Server) {
                                check(e.code == "invalid_link_code") { "code: ${e.code} (${e.detail})" }
                            }
                        }
                    }
                    // The same vault later: the same account, no new key.
                    OnlineClient(url, vaultA, a).use { again ->
                        check(!again.login("phone A", null).created) { "the kept key logs in again" }
                    }
                    check(vaultA.stored == 1) { "no second key" }
                    check(b.listHands(0u, 10u).map { it.points } == a.listHands(0u, 10u).map { it.points }) {
                        "both phones hold the same hand"
                    }
                }
            }
        } finally {
            server.destroy()
            server.waitFor()
            dir.deleteRecursively()
        }
    }

    test("a whole match through the core table saves every hand to the history by itself") {
        val dir = java.nio.file.Files.createTempDirectory("tongcheng-session").toFile()
        val path = File(dir, "history.db").path
        HistoryStore.open(path).use { store ->
            GameSession(SessionConfig(rules = "guobiao", level = "easy", seed = 31u, fullMatch = true, player = 2u)).use { s ->
                s.saveTo(store)
                var hands = 0
                while (true) {
                    playHand(s)
                    hands++
                    check(s.table().yourSeat.toInt() == 2) { "the person sits in seat 2" }
                    if (!s.nextHand()) break
                }
                check(hands == 16) { "16 hands, played $hands" }
                check(s.table().matchFinished) { "the match is over" }
                val matchId = s.historyMatchId() ?: error("a match row")
                val stored = store.listHands(0u, 100u)
                check(stored.size == 16) { "16 hands stored, found ${stored.size}" }
                check(stored.all { it.seat.toInt() == 2 }) { "saved from the person's seat" }
                check(store.stats().hands == 16uL) { "statistics count them" }
                check(store.replay(stored[0].id, 2u).verified) { "a stored hand replays" }
                check(matchId > 0) { "match row $matchId" }
            }
        }
        dir.deleteRecursively()
    }
}

fun onlineTableTests() {
    test("plays an online hand through OnlineSession against a real server, every wall verified") {
        class Vault : KeyVault {
            var secret: ByteArray? = null
            override fun loadSecret(): ByteArray? = secret
            override fun storeSecret(secret: ByteArray) { this.secret = secret }
        }
        val dir = java.nio.file.Files.createTempDirectory("tongcheng-table").toFile()
        // The claim pause (0.5–1 s after every discard, default) is a fairness rule tested in
        // the server's suite; with it one hand takes about a minute, so it is short here.
        val server = ProcessBuilder(
            System.getProperty("tongcheng.server"), "--listen", "127.0.0.1:0",
            "--database", "sqlite:" + File(dir, "server.db").path,
            "--claim-pause-ms", "20,20",
        ).redirectErrorStream(true).start()
        try {
            val first = server.inputStream.bufferedReader().readLine() ?: error("the server printed nothing")
            val url = Regex("http://[0-9.:]+").find(first)?.value ?: error("no address in: $first")
            HistoryStore.open(File(dir, "a.db").path).use { store ->
                OnlineClient(url, Vault(), store).use { phone ->
                    try {
                        phone.play(null, 1u, "guobiao").close()
                        error("played without logging in")
                    } catch (e: TongchengException.NotLoggedIn) {}
                    phone.login("phone", null)
                    phone.play("kotlin-table", 1u, "guobiao").use { s ->
                        var joined = false
                        var decisions = 0
                        var ends = 0
                        var refused = false
                        val until = System.currentTimeMillis() + 60_000
                        while (ends < 1 && System.currentTimeMillis() < until) {
                            when (val u = s.nextUpdate(200uL)) {
                                is OnlineUpdateModel.Joined -> {
                                    joined = true
                                    check(u.table == "kotlin-table" && u.players.count { it.endsWith("(bot)") } == 3) { "joined: $u" }
                                }
                                is OnlineUpdateModel.Decision -> {
                                    decisions++
                                    check(s.table()?.pending == u.pending) { "the table model has the decision" }
                                    if (!refused && u.pending.kind == DecisionKindModel.TURN) {
                                        // A move that is not legal is refused, and nothing changes.
                                        try {
                                            s.act(ActionModel.Pung)
                                            error("a pung on one's own turn was sent")
                                        } catch (e: TongchengException.IllegalAction) { refused = true }
                                        check(s.table()?.pending == u.pending) { "still the same decision" }
                                    }
                                    s.act(u.pending.onTimeout)
                                }
                                is OnlineUpdateModel.HandEnd -> {
                                    ends++
                                    check(u.fair && u.problem == null) { "hand ${u.hand} does not verify: ${u.problem}" }
                                    store.saveHand(u.recordJson, u.yourSeat, System.currentTimeMillis() / 1000, null)
                                }
                                else -> {}
                            }
                        }
                        check(joined && decisions > 0 && refused) { "joined $joined, $decisions decisions" }
                        check(ends == 1 && s.handsVerified() == 1u && s.handsUnfair() == 0u) { "hands: $ends" }
                    }
                    check(store.listHands(0u, 10u).size == 1) { "the online hand is in the history" }
                }
            }
        } finally {
            server.destroy()
            server.waitFor()
            dir.deleteRecursively()
        }
    }
}
