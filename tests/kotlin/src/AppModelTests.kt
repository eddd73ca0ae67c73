// The app's journeys through the app model, as the phones run it: an AppModel from the
// generated bindings, a shell that only keeps the screen it is given and taps its buttons, and
// (online) a real tongcheng-server process. The shell decides nothing: it finds buttons by
// their accessible names, as a screen reader or a person would.

import com.tongcheng.core.*
import com.tongcheng.model.*
import java.io.File
import java.util.concurrent.atomic.AtomicInteger
import kotlin.concurrent.thread

fun tempDir(tag: String): File = java.nio.file.Files.createTempDirectory("tongcheng-$tag").toFile()

class MemoryVault : KeyVault {
    var secret: ByteArray? = null
    override fun loadSecret(): ByteArray? = secret
    override fun storeSecret(secret: ByteArray) { this.secret = secret }
}

/** What a phone's shell does with the model: keep the screen drawn, count the sounds. */
class Screen : AppShell {
    private val lock = Object()
    private var current: View? = null
    val draws = AtomicInteger()
    val sounds = mutableListOf<Sound>()

    override fun draw(view: View) {
        synchronized(lock) {
            current = view
            draws.incrementAndGet()
            lock.notifyAll()
        }
    }

    override fun playSound(sound: Sound) {
        synchronized(lock) { sounds.add(sound) }
    }

    /** Waits (up to [ms]) for a screen that passes [ok]. */
    fun await(what: String, ms: Long = 30_000, ok: (View) -> Boolean): View {
        val until = System.currentTimeMillis() + ms
        synchronized(lock) {
            while (true) {
                current?.let { if (ok(it)) return it }
                val left = until - System.currentTimeMillis()
                check(left > 0) { "never saw $what; the screen: $current" }
                lock.wait(left)
            }
        }
    }
}

/** Every button a screen shows. */
fun buttons(v: View): List<Button> = when (v) {
    is View.Home -> v.v1.buttons + listOfNotNull(v.v1.online.retry)
    is View.NewMatch -> v.v1.pickers.flatMap { it.options } + v.v1.start + v.v1.back
    is View.Table -> v.v1.claimBar + v.v1.chowChoices + v.v1.piaoChoices + v.v1.autoPlay + v.v1.hintButton + v.v1.back
    is View.Result -> listOf(v.v1.next) + listOfNotNull(v.v1.home)
    is View.Settings -> v.v1.pickers.flatMap { it.options } + v.v1.link + v.v1.back
    is View.Link -> listOf(v.v1.showCode) + v.v1.keypad + v.v1.join + v.v1.back
    is View.MyHands -> v.v1.statsRules.options + v.v1.hands.map { it.open } + listOfNotNull(v.v1.sync?.syncNow) + v.v1.previous + v.v1.next + v.v1.back
    is View.Replay -> v.v1.controls + v.v1.back
    is View.Queue -> listOf(v.v1.cancel)
    is View.Room -> v.v1.people.options + v.v1.open + v.v1.keypad + v.v1.join + v.v1.back
    is View.Tournaments -> v.v1.items + v.v1.back
    is View.Tournament -> v.v1.actions + v.v1.back
}

/** Taps the enabled button named [name] on the screen [v]. */
fun AppModel.press(v: View, name: String) {
    val b = buttons(v).firstOrNull { it.name == name && it.enabled }
        ?: error("no enabled '$name' on ${v::class.simpleName}: ${buttons(v).map { it.name to it.enabled }}")
    tap(b.tap)
}

/** One move by taps, as a person plays: win when offered, the 飘 of nothing, a pass on a
 *  claim, else the drawn tile (or the last one that may go). False when nothing is asked. */
fun AppModel.move(t: TableView): Boolean {
    val win = t.claimBar.firstOrNull { it.name == "胡" && it.enabled }
    val pass = t.claimBar.firstOrNull { it.name == "过" && it.enabled }
    val tile = t.drawn?.takeIf { it.enabled } ?: t.hand.lastOrNull { it.enabled }
    val b = win?.tap ?: t.piaoChoices.firstOrNull()?.tap ?: t.chowChoices.firstOrNull()?.tap ?: pass?.tap ?: tile?.tap ?: return false
    tap(b)
    return true
}

/** Plays the table by taps until the result screen. */
fun AppModel.playToResult(screen: Screen, ms: Long = 90_000): ResultView {
    val until = System.currentTimeMillis() + ms
    var seen = -1
    while (true) {
        check(System.currentTimeMillis() < until) { "the hand did not end: ${view()}" }
        // Each screen is answered once; the next draw brings the next decision.
        val v = screen.await("a change", until - System.currentTimeMillis()) { seen != screen.draws.get() }
        seen = screen.draws.get()
        when (v) {
            is View.Result -> return v.v1
            is View.Table -> move(v.v1)
            else -> {}
        }
    }
}

fun appModel(dir: File, screen: Screen, server: String? = null, vault: KeyVault = MemoryVault()) =
    AppModel(AppConfig(dir.path, server, 480, 5u), vault, screen)

fun appModelTests() {
    test("first open: home in Chinese, a hand against bots played by taps, 结算, 我的牌局 and its replay") {
        val dir = tempDir("app")
        val screen = Screen()
        appModel(dir, screen).use { m ->
            m.network(false)
            val home = screen.await("home") { it is View.Home } as View.Home
            check(home.v1.title == "桐城麻将") { home.v1.title }
            val names = home.v1.buttons.map { it.name }
            check(names.containsAll(listOf("单机对战", "快速匹配", "好友房", "我的牌局", "设置"))) { "$names" }
            check(!home.v1.online.signedIn) { "offline: ${home.v1.online}" }
            m.press(home, "单机对战")
            val setup = screen.await("the new match") { it is View.NewMatch } as View.NewMatch
            check(setup.v1.pickers.size >= 3) { "rules, level, clock: ${setup.v1.pickers.map { it.label }}" }
            m.tap(setup.v1.start.tap)
            val table = screen.await("the table") { it is View.Table } as View.Table
            check(table.v1.seats.size == 4 && table.v1.seats[0].isYou) { "${table.v1.seats}" }
            check(table.v1.claimBar.map { it.name } == listOf("吃", "碰", "杠", "胡", "过")) { "${table.v1.claimBar}" }
            val result = m.playToResult(screen)
            check(result.heading == "结算") { result.heading }
            check(result.payments.size == 4 && result.payments.sumOf { it.delta } == 0) { "${result.payments}" }
            check(result.fans.all { f -> f.name.any { it.code > 0x2e80 } }) { "Chinese fan names: ${result.fans}" }
            check(screen.sounds.isNotEmpty()) { "sounds played" }
            // Home, then 我的牌局: the hand is in the phone's history database.
            m.tap((result.home ?: result.next).tap)
            val back = screen.await("home again") { it is View.Home }
            check(buttons(back).any { it.name == "继续牌局" }) { "the match is kept: ${buttons(back).map { it.name }}" }
            m.press(back, "我的牌局")
            val list = screen.await("the kept hand") { it is View.MyHands && it.v1.hands.isNotEmpty() } as View.MyHands
            check(list.v1.hands.size == 1 && list.v1.stats.isNotEmpty()) { "${list.v1}" }
            m.tap(list.v1.hands[0].open.tap)
            val replay = screen.await("the replay") { it is View.Replay } as View.Replay
            check(replay.v1.verified.isNotBlank() && replay.v1.controls.size == 4) { "${replay.v1}" }
            m.press(replay, replay.v1.controls[2].name)
            screen.await("a step on") { it is View.Replay && it.v1.stepLabel != replay.v1.stepLabel }
        }
        check(File(dir, "history.db").exists() && File(dir, "match.json").exists()) { "${dir.list()?.toList()}" }
        // The app opens again where it was: the match to continue, the hand in the history.
        val again = Screen()
        appModel(dir, again).use { m ->
            val home = again.await("home") { it is View.Home }
            m.press(home, "继续牌局")
            // Where it was left: the last hand's result, then the table of the next.
            again.await("the kept match") { it is View.Table || it is View.Result }
        }
        dir.deleteRecursively()
    }

    test("settings: English is kept and every screen speaks it; a tap the model does not know changes nothing") {
        val dir = tempDir("settings")
        val screen = Screen()
        appModel(dir, screen).use { m ->
            m.press(screen.await("home") { it is View.Home }, "设置")
            val settings = screen.await("settings") { it is View.Settings }
            m.press(settings, "English")
            screen.await("English") { it is View.Settings && it.v1.title == "Settings" }
            val before = m.view()
            for (bad in listOf("{\"tap\":\"no_such_button\"}", "not json at all")) {
                try {
                    m.tap(bad)
                    error("tapped $bad")
                } catch (e: TongchengException.InvalidInput) {
                    check(e.detail.startsWith("not a button's tap")) { e.detail }
                }
            }
            Thread.sleep(100)
            check(m.view() == before) { "unchanged" }
        }
        val again = Screen()
        appModel(dir, again).use { m ->
            val home = again.await("home") { it is View.Home } as View.Home
            check(home.v1.buttons.any { it.name == "Play vs bots" }) { "${home.v1.buttons.map { it.name }}" }
        }
        dir.deleteRecursively()
    }

    test("a damaged history file is kept aside, a new one begun, and the home screen says so") {
        val dir = tempDir("damaged")
        File(dir, "history.db").writeText("not a database")
        val screen = Screen()
        appModel(dir, screen).use { m ->
            val home = screen.await("home") { it is View.Home } as View.Home
            check(home.v1.notice?.contains("另存") == true) { "notice: ${home.v1.notice}" }
        }
        val aside = dir.listFiles()!!.filter { it.name.startsWith("history.db.") && it.name != "history.db" }
        check(aside.any { it.readText() == "not a database" }) { "kept aside: ${dir.list()?.toList()}" }
        dir.deleteRecursively()
    }
}

/** Runs [body] with a server started with [flags] (its output drained so it never blocks). */
fun withServer(vararg flags: String, body: (url: String) -> Unit) {
    val dir = tempDir("server")
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
        body(url)
    } finally {
        server.destroy()
        server.waitFor()
        dir.deleteRecursively()
    }
}

fun appModelOnlineTests() = withServer("--bot-fill-ms", "0", "--claim-pause-ms", "20,20", "--match-hands", "1") { url ->
    test("online: one tap logs in with the vault's key; 快速匹配 seats us with the server's bots; the wall verifies") {
        val dir = tempDir("online")
        val vault = MemoryVault()
        val screen = Screen()
        appModel(dir, screen, url, vault).use { m ->
            m.network(true)
            val home = screen.await("signed in") { it is View.Home && it.v1.online.signedIn } as View.Home
            check(vault.secret?.size == 32) { "the key is in the vault" }
            check(home.v1.online.status.isNotBlank()) { home.v1.online.status }
            m.press(home, "快速匹配")
            val table = screen.await("the server's table") { it is View.Table } as View.Table
            check(table.v1.seats.size == 4) { "${table.v1.seats}" }
            val result = m.playToResult(screen)
            check(result.fairness?.startsWith("牌墙已验证") == true) { "fairness: ${result.fairness}" }
            m.tap((result.home ?: result.next).tap)
            m.press(screen.await("home") { it is View.Home }, "我的牌局")
            screen.await("the online hand kept") { it is View.MyHands && it.v1.hands.size == 1 }
            // 同步 runs by itself on the first visit: the hand goes up (the server knew it).
            val synced = screen.await("synced") {
                it is View.MyHands && it.v1.sync?.status?.startsWith("已同步：上传 1 局") == true
            } as View.MyHands
            val sync = synced.v1.sync!!
            check(sync.status.endsWith("全部已上传") && sync.refused.isEmpty()) { "$sync" }
            m.press(synced, "立即同步")
            screen.await("synced again") { it is View.MyHands && it.v1.sync?.syncNow?.enabled == true }
        }
        // The same key logs in to the same account the next time.
        val again = Screen()
        appModel(tempDir("online2"), again, url, vault).use { m ->
            m.network(true)
            again.await("signed in again") { it is View.Home && it.v1.online.signedIn }
        }
        dir.deleteRecursively()
    }

    test("online: two phones meet in a 好友房 opened by one and joined by its six digits") {
        val a = Screen()
        val b = Screen()
        appModel(tempDir("owner"), a, url).use { owner ->
            appModel(tempDir("friend"), b, url).use { friend ->
                owner.network(true)
                friend.network(true)
                owner.press(a.await("owner signed in") { it is View.Home && it.v1.online.signedIn }, "好友房")
                val form = a.await("the room form") { it is View.Room } as View.Room
                owner.tap(form.v1.people.options.first { it.selected || it.label.startsWith("2") }.tap)
                owner.press(a.await("2 people") { it is View.Room }, form.v1.open.name)
                val waiting = a.await("the code") { it is View.Queue && it.v1.status.count(Char::isDigit) >= 6 } as View.Queue
                val code = waiting.v1.status.filter(Char::isDigit).take(6)
                friend.press(b.await("friend signed in") { it is View.Home && it.v1.online.signedIn }, "好友房")
                for (d in code) friend.press(b.await("the keypad") { it is View.Room }, d.toString())
                val typed = b.await("six digits") { it is View.Room && it.v1.code == code } as View.Room
                friend.tap(typed.v1.join.tap)
                val done = java.util.Collections.synchronizedList(mutableListOf<ResultView>())
                val t1 = thread { done.add(owner.playToResult(a)) }
                val t2 = thread { done.add(friend.playToResult(b)) }
                t1.join(); t2.join()
                check(done.size == 2) { "both hands ended" }
                check(done.all { it.fairness?.startsWith("牌墙已验证") == true }) { "${done.map { it.fairness }}" }
            }
        }
    }
}
