// The SwiftUI app target: renders the presenter's TableUi, like the Compose app on Android.
import SwiftUI
import TongchengKit

@main
struct TongchengApp: App {
    var body: some Scene {
        WindowGroup { TableView() }
    }
}

struct TableView: View {
    @State private var presenter = TablePresenter(session: try! GameSession(
        config: SessionConfig(rules: "guobiao", level: "normal", seed: UInt64.random(in: 0...UInt64.max), fullMatch: true, player: 0)))
    @State private var ui: TableUi?
    @State private var hint: String?

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
    }

    func tileButton(_ t: TileUi) -> some View {
        Text(t.glyph)
            .font(.system(size: 30))
            .foregroundColor(t.suit == "m" ? .red : t.suit == "p" ? .blue : t.suit == "s" ? .green : .primary)
            .onTapGesture { if t.tappable { ui = presenter.tapTile(t.code); hint = nil } }
    }
}
