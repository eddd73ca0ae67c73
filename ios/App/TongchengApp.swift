// The SwiftUI app target: renders the presenter's TableUi, like the Compose app on Android.
// Every call that can fail is in do/catch and its message is shown; nothing here traps.
import SwiftUI
import TongchengKit

@main
struct TongchengApp: App {
    var body: some Scene {
        WindowGroup { TableView() }
    }
}

/// Where the app keeps its files: the history and the match in play (as on Android).
enum Files {
    static let dir = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
    static let history = dir.appendingPathComponent("history.db").path
    static let unfinished = dir.appendingPathComponent("unfinished.json")
    static let matchId = dir.appendingPathComponent("unfinished.match")
}

/// The session to play, the history its hands go to, and what the player should be told.
struct Opened {
    var session: GameSession?
    var history: HistoryStore?
    var notices: [String] = []
}

/// Opens the history (moving an unusable file aside), resumes the kept match or starts one,
/// and keeps saving finished hands under the same match row.
func openSession() -> Opened {
    var o = Opened()
    do {
        try FileManager.default.createDirectory(at: Files.dir, withIntermediateDirectories: true)
    } catch {
        o.notices.append("The app's folder cannot be made (\(error.localizedDescription)): hands are not saved.")
    }
    do {
        o.history = try HistoryStore.open(path: Files.history)
    } catch TongchengError.UnusableHistory(let why) {
        do {
            let aside = try moveAside(path: Files.history)
            o.history = try HistoryStore.open(path: Files.history)
            o.notices.append("The history could not be read (\(why)); it was kept as \((aside as NSString).lastPathComponent) and a new one started.")
        } catch {
            o.notices.append("The history cannot be used (\(message(of: error))): hands are not being saved.")
        }
    } catch {
        o.notices.append("The history cannot be opened (\(message(of: error))): hands are not being saved.")
    }

    var resumed: GameSession? = nil
    if FileManager.default.fileExists(atPath: Files.unfinished.path) {
        do {
            let saved = try String(contentsOf: Files.unfinished, encoding: .utf8)
            resumed = try GameSession.resume(savedJson: saved)
        } catch {
            o.notices.append("The kept match cannot be continued (\(message(of: error))); a new match was started.")
        }
    }
    do {
        o.session = try resumed ?? GameSession(config: SessionConfig(
            rules: "guobiao", level: "normal", seed: UInt64.random(in: 0...UInt64.max), fullMatch: true, player: 0))
    } catch {
        o.notices.append("The match cannot start: \(message(of: error))")
        return o
    }
    if let h = o.history, let s = o.session {
        var matchId: Int64? = nil
        if resumed != nil && FileManager.default.fileExists(atPath: Files.matchId.path) {
            do {
                let text = try String(contentsOf: Files.matchId, encoding: .utf8)
                matchId = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))
            } catch {
                o.notices.append("The kept match's history row cannot be read (\(error.localizedDescription)); its next hands start a new one.")
            }
        }
        do {
            if let m = matchId {
                do { try s.continueSavingTo(store: h, matchId: m) } catch { try s.saveTo(store: h) }
            } else {
                try s.saveTo(store: h)
            }
        } catch {
            o.notices.append("Hands of this match will not be saved: \(message(of: error))")
        }
    }
    return o
}

/// The app's state, made once per window (a `@StateObject`): SwiftUI may rebuild the view
/// struct at any time, but the session must be opened only once.
final class AppModel: ObservableObject {
    let opened: Opened
    let presenter: TablePresenter?
    @Published var ui: TableUi? = nil
    @Published var hint: HintUi? = nil
    @Published var notices: [String] = []

    init() {
        let o = openSession()
        let p = o.session.map { TablePresenter(session: $0) }
        opened = o
        presenter = p
        ui = p?.start()
        notices = o.notices
    }

    /// Keeps the match in play when the app goes to the background (iOS may end it there).
    func keepUnfinished() {
        guard let s = opened.session else { return }
        do {
            if s.table().matchFinished {
                for f in [Files.unfinished, Files.matchId] where FileManager.default.fileExists(atPath: f.path) {
                    try FileManager.default.removeItem(at: f)
                }
            } else {
                try s.savedJson().write(to: Files.unfinished, atomically: true, encoding: .utf8)
                if let m = s.historyMatchId() { try String(m).write(to: Files.matchId, atomically: true, encoding: .utf8) }
            }
        } catch {
            notices.append("The match could not be kept for later: \(error.localizedDescription)")
        }
    }
}

struct TableView: View {
    @Environment(\.scenePhase) private var phase
    @StateObject private var model = AppModel()

    var body: some View {
        VStack(alignment: .leading, spacing: 6) {
            ForEach(model.notices, id: \.self) { Text($0).font(.footnote).foregroundColor(.red) }
            if let p = model.presenter, let state = model.ui {
                table(p, state)
            } else {
                Text("The game cannot start on this device.")
            }
        }
        .padding()
        // The one-value form: the app targets iOS 16.
        .onChange(of: phase) { now in if now == .background { model.keepUnfinished() } }
    }

    @ViewBuilder
    func table(_ p: TablePresenter, _ state: TableUi) -> some View {
        Text("\(state.title) · wall \(state.wall)").font(.caption)
        ForEach(state.seats.filter { !$0.isYou }, id: \.seat) { s in seatView(s) }
        Spacer()
        if let you = state.seats.first(where: { $0.isYou }) { seatView(you) }
        Text(state.status + (TablePresenter.countdown(state).map { " · \($0)" } ?? ""))
        if state.autoPlay { Button("Take back") { model.ui = p.autoPlay(false) } }
        if let e = state.error { Text(e).foregroundColor(.red) }
        if let h = model.hint { hintPanel(h) }
        HStack(spacing: 1) {
            ForEach(Array(state.hand.enumerated()), id: \.offset) { _, t in tileButton(p, t) }
            if let d = state.drawn { Spacer().frame(width: 12); tileButton(p, d) }
        }
        HStack {
            ForEach(state.buttons, id: \.self) { b in
                Button(b.label) { model.ui = p.press(b.action); model.hint = nil }
            }
            if !state.handFinished {
                Button("Hint") { model.hint = p.hintUi() }
            }
        }
        if state.handFinished {
            ForEach(state.resultLines, id: \.self) { Text($0) }
            if state.matchFinished {
                Text("The match is over.")
            } else {
                Button("Next hand") { _ = p.nextHand(); model.ui = p.state; model.hint = nil }
            }
        }
        // Time passes: the table's clock plays timeouts and 托管 itself; this only redraws.
        Color.clear.frame(height: 0).task {
            while true {
                do { try await Task.sleep(nanoseconds: 250_000_000) } catch { return } // the view is gone
                let next = p.tick()
                if next != model.ui {
                    if next.status != model.ui?.status || next.hand != model.ui?.hand { model.hint = nil }
                    model.ui = next
                }
            }
        }
    }

    func seatView(_ s: SeatUi) -> some View {
        VStack(alignment: .leading, spacing: 2) {
            Text(s.line).font(.caption)
            if !s.melds.isEmpty { Text(s.melds.joined(separator: "  ")).font(.system(size: 20)) }
            ScrollView(.horizontal, showsIndicators: false) {
                HStack(spacing: 1) {
                    ForEach(Array(s.discards.enumerated()), id: \.offset) { _, t in
                        tileText(t, size: 20).opacity(t.dimmed ? 0.4 : 1)
                    }
                }
            }
        }
    }

    func hintPanel(_ h: HintUi) -> some View {
        VStack(alignment: .leading, spacing: 2) {
            Text(h.headline).font(.subheadline)
            if !h.reason.isEmpty { Text(h.reason).font(.footnote) }
            ForEach(h.choices, id: \.self) { c in
                Text((c.recommended ? "★ " : "· ") + c.line).font(.footnote)
                if let v = c.value { Text("   " + v).font(.footnote) }
                if let v = c.versus { Text("   " + v).font(.footnote) }
            }
        }
    }

    func tileText(_ t: TileUi, size: CGFloat) -> some View {
        Text(t.glyph)
            .font(.system(size: size))
            .foregroundColor(t.suit == "m" ? .red : t.suit == "p" ? .blue : t.suit == "s" ? .green : .primary)
    }

    func tileButton(_ p: TablePresenter, _ t: TileUi) -> some View {
        tileText(t, size: 30)
            .onTapGesture { if t.tappable { model.ui = p.tapTile(t.code); model.hint = nil } }
    }
}
