// The SwiftUI app target: renders the presenter's TableUi, like the Compose app on Android.
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

/// Opens the history (moving an unusable file aside), resumes the saved match or starts one,
/// and keeps saving finished hands under the same match row.
func openSession() -> (GameSession, HistoryStore?) {
    try? FileManager.default.createDirectory(at: Files.dir, withIntermediateDirectories: true)
    var history: HistoryStore? = nil
    do { history = try HistoryStore(path: Files.history) } catch TongchengError.UnusableHistory {
        _ = try? moveAside(path: Files.history)
        history = try? HistoryStore(path: Files.history)
    } catch {}
    let saved = try? String(contentsOf: Files.unfinished, encoding: .utf8)
    let resumed = saved.flatMap { try? GameSession.resume(savedJson: $0) }
    let session = resumed ?? (try! GameSession(config: SessionConfig(
        rules: "guobiao", level: "normal", seed: UInt64.random(in: 0...UInt64.max), fullMatch: true, player: 0)))
    if let h = history {
        let matchId = resumed == nil ? nil : (try? String(contentsOf: Files.matchId, encoding: .utf8)).flatMap { Int64($0) }
        if let m = matchId, (try? session.continueSavingTo(store: h, matchId: m)) != nil {} else { try? session.saveTo(store: h) }
    }
    return (session, history)
}

struct TableView: View {
    @Environment(\.scenePhase) private var phase
    @State private var opened: (GameSession, HistoryStore?)
    @State private var presenter: TablePresenter
    @State private var ui: TableUi?
    @State private var hint: String?

    init() {
        let o = openSession()
        _opened = State(initialValue: o)
        _presenter = State(initialValue: TablePresenter(session: o.0))
    }

    /// Keeps the match in play when the app goes to the background (iOS may end it there).
    func keepUnfinished() {
        let s = opened.0
        if s.table().matchFinished {
            try? FileManager.default.removeItem(at: Files.unfinished)
            try? FileManager.default.removeItem(at: Files.matchId)
        } else {
            try? s.savedJson().write(to: Files.unfinished, atomically: true, encoding: .utf8)
            if let m = s.historyMatchId() { try? String(m).write(to: Files.matchId, atomically: true, encoding: .utf8) }
        }
    }

    var body: some View {
        let state = ui ?? presenter.start()
        VStack(alignment: .leading, spacing: 8) {
            Text("\(state.title) · wall \(state.wall)").font(.caption)
            Spacer()
            Text(state.status)
            if let e = state.error { Text(e).foregroundColor(.red) }
            if let h = hint { Text(h).font(.footnote) }
            HStack(spacing: 1) {
                ForEach(state.hand, id: \.self) { t in tileButton(t) }
                if let d = state.drawn { Spacer().frame(width: 12); tileButton(d) }
            }
            HStack {
                ForEach(state.buttons, id: \.self) { b in
                    Button(b.label) { ui = presenter.press(b.action); hint = nil }
                }
                Button("Hint") { hint = presenter.hint()?.reason }
            }
            if state.handFinished {
                ForEach(state.resultLines, id: \.self) { Text($0) }
                if !state.matchFinished {
                    Button("Next hand") { if presenter.nextHand() { ui = presenter.state } }
                }
            }
        }
        .padding()
        .onAppear { ui = presenter.start() }
        .onChange(of: phase) { _, p in if p == .background { keepUnfinished() } }
    }

    func tileButton(_ t: TileUi) -> some View {
        Text(t.glyph)
            .font(.system(size: 30))
            .foregroundColor(t.suit == "m" ? .red : t.suit == "p" ? .blue : t.suit == "s" ? .green : .primary)
            .onTapGesture { if t.tappable { ui = presenter.tapTile(t.code); hint = nil } }
    }
}
