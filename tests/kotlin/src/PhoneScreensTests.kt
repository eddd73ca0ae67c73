// The phone screens around the table — start screen (rules, level, continue the kept match),
// history list, hint panel, seats and countdown — through the presenter against the real
// library, as both apps show them.

import com.tongcheng.core.*
import com.tongcheng.presenter.*
import java.io.File
import java.time.ZoneOffset

fun tempDir(tag: String): File = java.nio.file.Files.createTempDirectory("tongcheng-$tag").toFile()

fun phoneScreenTests() {
    test("the start screen offers every rule set and level, and each starts a match under its rules") {
        val lobby = Lobby(saved = null, chosen = MatchSetup(), history = null)
        check(lobby.state.resume == null && lobby.state.notice == null) { "nothing kept: ${lobby.state}" }
        check(lobby.state.rules.map { it.label } == RuleChoice.entries.map { it.title }) { "rules: ${lobby.state.rules}" }
        check(lobby.state.rules.count { it.selected } == 1 && lobby.state.rules[0].selected) { "guobiao by default" }
        check(lobby.state.levels.map { it.label } == listOf("Easy", "Normal", "Hard")) { "levels: ${lobby.state.levels}" }
        check(lobby.state.levels.single { it.selected }.label == "Normal") { "normal by default" }
        lobby.close()
        var seed = 300uL
        for (rules in RuleChoice.entries) {
            Lobby(null, MatchSetup(), null).use { l ->
                l.choose(rules)
                val ui = l.choose(BotLevel.EASY)
                check(ui.rules.single { it.selected }.label == rules.title) { "chose ${rules.title}: ${ui.rules}" }
                check(ui.setup == MatchSetup(rules, BotLevel.EASY)) { "setup ${ui.setup}" }
                val m = l.startNew(seed++) ?: error("${rules.preset} did not start: ${l.state.notice}")
                check(!m.resumed && m.setup == ui.setup && m.notice == null) { "a new match: ${m.notice}" }
                m.presenter.use { p ->
                    val first = p.start()
                    // Hangzhou names its 财神 on the table and marks it in the hand.
                    val wilds = rules.preset.startsWith("hangzhou")
                    check(first.title.contains("财神") == wilds) { "${rules.preset}: ${first.title}" }
                    if (wilds) {
                        val code = first.title.substringAfterLast(' ')
                        check((first.hand + listOfNotNull(first.drawn)).all { it.wild == (it.code == code) }) { "wild marks" }
                    }
                    val end = playHand(p)
                    check(end.resultLines.isNotEmpty()) { "${rules.preset}: a result" }
                    check(!end.matchFinished) { "${rules.preset}: a whole match, not a single hand" }
                }
            }
        }
    }

    test("a setup is kept as one line and read back; an unknown line falls back to the default") {
        for (r in RuleChoice.entries) for (l in BotLevel.entries) {
            val s = MatchSetup(r, l)
            check(MatchSetup.decode(s.encode()) == s && MatchSetup.decodeStrict(s.encode()) == s) { s.encode() }
        }
        check(MatchSetup.decode(null) == MatchSetup()) { "no file" }
        check(MatchSetup.decode("rules=riichi level=godlike") == MatchSetup()) { "unknown names" }
        check(MatchSetup.decode("level=hard") == MatchSetup(level = BotLevel.HARD)) { "partial" }
        check(MatchSetup.decodeStrict("rules=riichi level=hard") == null) { "strict refuses unknown rules" }
        check(MatchSetup(RuleChoice.HANGZHOU_MIL, BotLevel.HARD).config(5u).rules == "hangzhou-mil") { "the core's preset name" }
    }

    test("the kept match is offered on the start screen and continues under the same match row") {
        val dir = tempDir("lobby")
        val opened = openHistory(File(dir, "history.db").path)
        check(opened.notice == null) { "a fresh history: ${opened.notice}" }
        val store = opened.store ?: error("no store")
        store.use {
            val setup = MatchSetup(RuleChoice.HANGZHOU, BotLevel.HARD)
            var keptOrNull: SavedMatch? = null
            var beforeOrNull: TableUi? = null
            Lobby(null, setup, store).use { l ->
                val m = l.startNew(515u) ?: error("did not start: ${l.state.notice}")
                m.presenter.use { p ->
                    playHand(p)
                    check(p.nextHand()) { "the match goes on" }
                    val ui = p.state
                    val move = ui.drawn ?: ui.hand.lastOrNull { it.tappable }
                    if (move != null) p.tapTile(move.code)
                    beforeOrNull = p.state
                    keptOrNull = p.keep(m.setup) ?: error("an unfinished match is kept")
                }
            }
            val kept = keptOrNull!!
            val before = beforeOrNull!!
            check(kept.setup == setup && kept.matchId != null) { "kept: ${kept.setup} ${kept.matchId}" }
            // The app was ended; on the next start the lobby offers the kept match.
            Lobby(kept, MatchSetup(), store).use { l ->
                val offer = l.state.resume ?: error("no Continue offered: ${l.state.notice}")
                check(offer.startsWith("杭州 Hangzhou · hard bots · hand 2, ")) { "offer: $offer" }
                check(offer.contains("tiles in the wall · your score ")) { "offer: $offer" }
                check(l.state.setup == MatchSetup()) { "the new-match choice is the player's last one" }
                val m = l.resume() ?: error("resume refused")
                check(m.resumed && m.setup == setup && m.notice == null) { "resumed: ${m.notice}" }
                check(l.state.resume == null && l.resume() == null) { "resumed once" }
                m.presenter.use { p ->
                    val ui = p.start()
                    check(ui.title == before.title && ui.hand == before.hand) { "the same table: ${ui.title} ${before.title}" }
                    playHand(p)
                }
            }
            val hands = store.listHands(0u, 10u)
            check(hands.size == 2 && hands.all { it.matchId == kept.matchId }) {
                "two hands under match ${kept.matchId}: ${hands.map { it.matchId }}"
            }
            // A new match gives the kept one up.
            Lobby(kept, MatchSetup(), store).use { l ->
                val m = l.startNew(516u) ?: error("did not start")
                check(!m.resumed && l.state.resume == null) { "the kept match is dropped" }
                m.presenter.close()
            }
        }
        dir.deleteRecursively()
    }

    test("a kept match that cannot be continued is said so and set aside; a finished one is not kept") {
        Lobby(SavedMatch("{\"version\":1,", null, 3), MatchSetup(), null).use { l ->
            check(l.state.savedMatchUnusable && l.state.resume == null) { "unusable: ${l.state}" }
            val n = l.state.notice ?: error("no notice")
            check(n.startsWith("The kept match cannot be continued (") && n.contains("cannot be resumed")) { n }
            check(l.resume() == null) { "nothing to resume" }
            val m = l.startNew(9u) ?: error("a new match starts anyway")
            m.presenter.close()
        }
        TablePresenter(GameSession(config(10u, full = false))).use { p ->
            playHand(p)
            check(p.keep(MatchSetup()) == null) { "a finished match is not kept" }
        }
    }

    test("a damaged history is moved aside and a new one opened; storage that cannot be written plays on without saving") {
        val dir = tempDir("open-history")
        val path = File(dir, "history.db")
        path.writeText("not a history")
        val opened = openHistory(path.path)
        val store = opened.store ?: error("no new history: ${opened.notice}")
        store.close()
        val n = opened.notice ?: error("the player is told")
        val aside = dir.listFiles()!!.single { it.name.startsWith("history.db.corrupt") }
        check(n.contains("kept as ${aside.name}")) { "notice: $n, files ${dir.list()!!.toList()}" }
        check(aside.readText() == "not a history") { "the old file is kept as it was" }
        // A file where the folder should be: no history can be made there (even as root).
        val notAFolder = File(dir, "a-file").apply { writeText("x") }
        val nowhere = openHistory(File(notAFolder, "history.db").path)
        check(nowhere.store == null && nowhere.notice!!.contains("hands are not being saved")) { "notice: ${nowhere.notice}" }
        dir.deleteRecursively()
    }

    test("the history screen lists recent hands with result and points, a page at a time") {
        val none = HistoryPresenter(null).load()
        check(none.rows.isEmpty() && none.error!!.contains("cannot be opened")) { "no store: $none" }
        val dir = tempDir("history-screen")
        HistoryStore.open(File(dir, "h.db").path).use { store ->
            val empty = HistoryPresenter(store, ZoneOffset.UTC).load()
            check(empty.rows.isEmpty() && empty.empty != null && empty.error == null) { "empty: $empty" }
            check(empty.summary == "No hands played yet") { empty.summary }
            val deltas = mutableListOf<Int>()
            for (seed in 60uL..62uL) {
                GameSession(config(seed, level = "easy")).use { s ->
                    s.saveTo(store)
                    playHand(TablePresenter(s))
                    deltas.add(s.result()!!.deltas[0])
                }
            }
            val h = HistoryPresenter(store, ZoneOffset.UTC, pageSize = 2)
            val first = h.load()
            check(first.error == null && first.rows.size == 2 && first.hasMore) { "page 1: $first" }
            check(first.summary.startsWith("3 hands · ")) { first.summary }
            val all = h.more()
            check(all.rows.size == 3 && !all.hasMore) { "page 2: ${all.rows.size} ${all.hasMore}" }
            check(all.rows.map { it.id } == store.listHands(0u, 10u).map { it.id }) { "newest first, no repeats" }
            val total = deltas.sum().toLong()
            check(all.summary.endsWith(Lobby.signed(total) + if (total == 1L || total == -1L) " point" else " points")) {
                "summary ${all.summary}, deltas $deltas"
            }
            // Newest first: the last hand played leads.
            check(all.rows.map { it.points } == deltas.reversed().map { Lobby.signed(it.toLong()) }) {
                "points ${all.rows.map { it.points }} for deltas $deltas"
            }
            for (r in all.rows) {
                check(Regex("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}").matches(r.playedAt)) { r.playedAt }
                check(r.rules == "国标 Guobiao") { r.rules }
                when (r.outcome) {
                    HandOutcome.DRAW -> check(r.result == "Draw" && r.fans.isEmpty()) { "$r" }
                    HandOutcome.WON -> check(r.result.startsWith("Won") && r.result.contains(" fan") && r.fans.isNotEmpty()) { "$r" }
                    HandOutcome.DEALT_IN -> check(r.result.startsWith("Dealt in to seat ") && r.points.startsWith("−")) { "$r" }
                    HandOutcome.LOST -> check(Regex("Seat [1-3] won.*").matches(r.result)) { "$r" }
                }
            }
        }
        dir.deleteRecursively()
    }

    test("the hint panel names the move, and for the top choices distance, live tiles, target, points and why each beats the next") {
        var explained = 0
        var withValue = 0
        for (seed in 11uL..16uL) GameSession(config(seed)).use { s ->
            val p = TablePresenter(s)
            p.start()
            val hint = p.hintUi() ?: error("a hint on the human's turn")
            val raw = s.hint()!!
            check(hint.headline == "Suggested: " + TablePresenter.label(raw.recommended!!)) { hint.headline }
            check(hint.reason == raw.reason && hint.reason.isNotBlank()) { "reason: ${hint.reason}" }
            check(hint.choices.size == minOf(HintUi.SHOWN, raw.discards.size) && hint.choices.isNotEmpty()) { "choices ${hint.choices.size}" }
            hint.choices.zip(raw.discards).forEach { (c, d) ->
                check(c.line.startsWith("Discard ${d.tile.code} · ${HintUi.distance(d.shanten.toInt())} · ${HintUi.liveText(d.live.toInt())}")) { c.line }
                check(c.value == HintUi.value(d.target, d.points)) { "value ${c.value} for ${d.target} ${d.points}" }
                check(c.versus == d.versus) { "versus ${c.versus}" }
                if (c.value != null) withValue++
            }
            if (raw.discards.size > 1) {
                val why = hint.choices[0].versus ?: error("the top choice says why it beats the next: ${raw.discards[0]}")
                check(why.contains(raw.discards[1].tile.code)) { "names the next choice: $why" }
                explained++
            }
            check(hint.choices.count { it.recommended } <= 1) { "one suggestion" }
            val top = raw.recommended
            if (top is ActionModel.Discard) check(hint.choices.any { it.recommended && it.tile.code == top.tile }) { "the suggested discard is marked" }
        }
        check(explained > 0 && withValue > 0) { "explained $explained, with a target or points $withValue" }
        check(HintUi.distance(0) == "ready" && HintUi.distance(1) == "1 step from ready" && HintUi.distance(3) == "3 steps from ready") { "distance words" }
        check(HintUi.value("清一色 Full Flush", 24u) == "Keeps 清一色 Full Flush, about 24 points") { "value words" }
        check(HintUi.value(null, 1u) == "About 1 point" && HintUi.value(null, 0u) == null) { "value words" }
    }

    test("the table shows every opponent's discards, melds and the countdown") {
        GameSession(config(21u)).use { s ->
            val p = TablePresenter(s)
            var ui = p.start()
            var sawOpponentDiscards = false
            var sawCountdown = false
            var guard = 0
            while (!ui.handFinished && guard++ < 500) {
                val others = ui.seats.filter { !it.isYou }
                check(others.size == 3) { "three opponents" }
                if (others.any { it.discards.isNotEmpty() }) sawOpponentDiscards = true
                val t = s.table()
                for ((seat, model) in ui.seats.zip(t.seats)) {
                    check(seat.discards.map { it.code } == model.discards.map { it.tile?.code ?: "" }) { "discards of seat ${seat.seat}" }
                    check(seat.discards.map { it.dimmed } == model.discards.map { it.claimed }) { "claimed discards dimmed" }
                    check(seat.melds.size == model.melds.size) { "melds of seat ${seat.seat}" }
                    check(seat.line.startsWith(seat.wind) && seat.line.contains(" tiles") || seat.concealed == 1) { seat.line }
                    check(seat.line.contains("(dealer)") == model.isDealer) { seat.line }
                }
                val left = ui.secondsLeft
                if (left != null) {
                    check(TablePresenter.countdown(ui) == "$left s left") { "countdown" }
                    check(left in 1..30) { "the rules' limits: $left s" }
                    sawCountdown = true
                }
                val win = ui.buttons.firstOrNull { it.action is ActionModel.Win }
                ui = when {
                    win != null -> p.press(win.action)
                    ui.drawn != null -> p.tapTile(ui.drawn!!.code)
                    ui.hand.any { it.tappable } -> p.tapTile(ui.hand.last().code)
                    else -> p.press(ActionModel.Pass)
                }
            }
            check(sawOpponentDiscards) { "opponents' discards shown" }
            check(sawCountdown) { "decisions are timed" }
            check(TablePresenter.countdown(ui) == null) { "no countdown once the hand is over" }
            check(ui.seats.flatMap { it.melds }.all { it.isNotBlank() }) { "melds drawn" }
        }
    }

    test("the table's own clock times a decision out, and twice in a row the seat plays itself until taken back") {
        var now = 1_000uL
        GameSession(config(23u)).use { s ->
            val p = TablePresenter(s) { now }
            var ui = p.start()
            check(ui.secondsLeft == 30 && TablePresenter.countdown(ui) == "30 s left") { "the dealer's first discard: ${ui.secondsLeft}" }
            now += 10_500uL
            ui = p.tick()
            check(ui.secondsLeft == 20) { "the countdown moves with the time passed in: ${ui.secondsLeft}" }
            val before = s.table().seats.sumOf { it.discards.size }
            // The limit passes: the table plays the timeout action itself (the view does nothing).
            now += 20_000uL
            ui = p.tick()
            check(s.table().seats.sumOf { it.discards.size } > before) { "the timeout discarded" }
            check(!ui.autoPlay) { "one timeout is not 托管" }
            var guard = 0
            while (!ui.autoPlay && !ui.handFinished) {
                check(guard++ < 10) { "no second timeout" }
                now += 60_000uL
                ui = p.tick()
            }
            check(ui.autoPlay) { "two timeouts in a row: 托管" }
            check(ui.handFinished || ui.status.contains("托管")) { ui.status }
            // The stand-in plays at once: no decision of the person is left waiting.
            check(s.table().pending == null || ui.handFinished) { "the seat plays itself" }
            ui = p.autoPlay(false)
            check(!ui.autoPlay) { "taken back" }
        }
        GameSession(SessionConfig(rules = "guobiao", level = "normal", seed = 24u, fullMatch = false, clock = "off")).use { s ->
            val ui = TablePresenter(s) { 0uL }.start()
            check(ui.secondsLeft == null && TablePresenter.countdown(ui) == null) { "no clock: ${ui.secondsLeft}" }
        }
        try {
            GameSession(SessionConfig(rules = "guobiao", level = "normal", seed = 1u, fullMatch = false, clock = "slow")).close()
            error("an unknown clock must fail")
        } catch (e: TongchengException.InvalidInput) {
            check(e.message!!.contains("off, relaxed, match")) { "message: ${e.message}" }
        }
    }
}
