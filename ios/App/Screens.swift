// Every screen, drawn from the model's view: texts, names, what is enabled and what a tap
// sends all come in the view. A layout only places fields.
import SwiftUI
import TongchengKit

struct AppScreen: SwiftUI.View {
    @ObservedObject var shell: Shell

    var body: some SwiftUI.View {
        if let screen = shell.screen {
            ScreenView(screen: screen, tap: shell.tap)
        } else {
            Text(shell.failure ?? "")
        }
    }
}

struct ScreenView: SwiftUI.View {
    let screen: Screen
    let tap: (Tap) -> Void

    var body: some SwiftUI.View {
        switch screen {
        case .home(let h):
            Page(title: h.title) {
                ForEach(h.buttons, id: \.name) { ModelButton(b: $0, tap: tap) }
                if let n = h.notice { Text(n).font(.footnote) }
                Text(h.online.status).font(.footnote)
                ForEach(h.online.ratings, id: \.self) { Text($0).font(.footnote) }
                if let r = h.online.retry { ModelButton(b: r, tap: tap) }
            }
        case .newMatch(let m):
            Page(title: m.title) {
                ForEach(m.pickers, id: \.label) { PickerRow(p: $0, tap: tap) }
                HStack { ModelButton(b: m.start, tap: tap); ModelButton(b: m.back, tap: tap) }
            }
        case .table(let t): TableScreen(t: t, tap: tap)
        case .result(let r): ResultScreen(r: r, tap: tap)
        case .settings(let s):
            Page(title: s.title) {
                ForEach(s.pickers, id: \.label) { PickerRow(p: $0, tap: tap) }
                HStack { ModelButton(b: s.link, tap: tap); ModelButton(b: s.back, tap: tap) }
            }
        case .link(let l):
            Page(title: l.title) {
                Text(l.showLabel).font(.footnote)
                ModelButton(b: l.showCode, tap: tap)
                if let shown = l.shown { Text(shown).font(.title2) }
                Text(l.typeLabel).font(.footnote)
                Text(l.typed).font(.title2)
                LazyVGrid(columns: Array(repeating: GridItem(.flexible()), count: 6)) {
                    ForEach(l.keypad, id: \.name) { ModelButton(b: $0, tap: tap) }
                }
                ModelButton(b: l.join, tap: tap)
                if let n = l.notice { Text(n).foregroundColor(.red) }
                ModelButton(b: l.back, tap: tap)
            }
        case .myHands(let h):
            Page(title: h.title) {
                PickerRow(p: h.statsRules, tap: tap)
                ForEach(h.stats, id: \.label) { f in Text("\(f.label) \(f.value)") }
                if let n = h.notice { Text(n) }
                if let s = h.sync {
                    HStack { Text(s.title).font(.headline); Text(s.status).font(.footnote); ModelButton(b: s.syncNow, tap: tap) }
                    ForEach(s.refused, id: \.self) { Text($0).font(.caption).foregroundColor(.red) }
                }
                ForEach(h.hands, id: \.open.name) { row in
                    VStack(alignment: .leading) {
                        ModelButton(b: row.open, tap: tap)
                        Text(row.detail).font(.caption)
                        Text(row.points).foregroundColor(row.won ? .red : .primary)
                    }
                }
                HStack { ModelButton(b: h.previous, tap: tap); Text(h.pageLabel); ModelButton(b: h.next, tap: tap); ModelButton(b: h.back, tap: tap) }
            }
        case .replay(let r):
            Page(title: r.title) {
                Text("\(r.stepLabel) · \(r.lastMove)")
                Text(r.status)
                ForEach(Array(r.seats.enumerated()), id: \.offset) { SeatRow(s: $0.element) }
                TileRow(tiles: r.hand + (r.drawn.map { [$0] } ?? []))
                HStack { ForEach(r.controls, id: \.name) { ModelButton(b: $0, tap: tap) } }
                Text(r.verified).font(.caption)
                if let res = r.result { ResultScreen(r: res, tap: tap) }
                ModelButton(b: r.back, tap: tap)
            }
        case .queue(let q):
            Page(title: q.title) { Text(q.status); ModelButton(b: q.cancel, tap: tap) }
        case .room(let r):
            Page(title: r.title) {
                Text(r.rules)
                PickerRow(p: r.people, tap: tap)
                ModelButton(b: r.open, tap: tap)
                Text("\(r.codeLabel) \(r.code)").font(.title2)
                LazyVGrid(columns: Array(repeating: GridItem(.flexible()), count: 3)) {
                    ForEach(r.keypad, id: \.name) { ModelButton(b: $0, tap: tap) }
                }
                HStack { ModelButton(b: r.join, tap: tap); ModelButton(b: r.back, tap: tap) }
            }
        case .tournaments(let t):
            Page(title: t.title) {
                if let e = t.empty { Text(e) }
                ForEach(t.items, id: \.name) { ModelButton(b: $0, tap: tap) }
                ModelButton(b: t.back, tap: tap)
            }
        case .tournament(let t):
            Page(title: t.title) {
                ForEach(t.lines, id: \.self) { Text($0) }
                ForEach(t.standings, id: \.self) { Text($0).font(.callout) }
                if let me = t.me { Text(me) }
                if let v = t.verified { Text(v) }
                if let n = t.notice { Text(n).foregroundColor(.red) }
                HStack { ForEach(t.actions, id: \.name) { ModelButton(b: $0, tap: tap) } }
                ModelButton(b: t.back, tap: tap)
            }
        }
    }
}

struct Page<Content: SwiftUI.View>: SwiftUI.View {
    let title: String
    @ViewBuilder let content: () -> Content
    var body: some SwiftUI.View {
        ScrollView {
            VStack(alignment: .leading, spacing: 8) {
                Text(title).font(.title)
                content()
            }.padding()
        }
    }
}

/// A model button: its label, its accessible name, enabled as the model says.
struct ModelButton: SwiftUI.View {
    let b: TongchengKit.Button
    let tap: (Tap) -> Void
    var body: some SwiftUI.View {
        SwiftUI.Button(b.label) { tap(b.tap) }
            .disabled(!b.enabled)
            .frame(minHeight: 44)
            .buttonStyle(.bordered)
            .tint(b.selected ? .accentColor : .secondary)
            .accessibilityLabel(b.name)
    }
}

struct PickerRow: SwiftUI.View {
    let p: TongchengKit.Picker
    let tap: (Tap) -> Void
    var body: some SwiftUI.View {
        VStack(alignment: .leading) {
            Text(p.label).font(.subheadline)
            ScrollView(.horizontal) { HStack { ForEach(p.options, id: \.name) { ModelButton(b: $0, tap: tap) } } }
        }
    }
}

/// A tile: the model's name on a tile face (a back when hidden), the 财神 marked.
struct TileFace: SwiftUI.View {
    let t: TileView
    var small = false
    var body: some SwiftUI.View {
        let w: CGFloat = small ? 26 : 40
        ZStack {
            RoundedRectangle(cornerRadius: 4).fill(t.hidden ? Color.green.opacity(0.6) : Color(white: 0.98))
            RoundedRectangle(cornerRadius: 4).stroke(t.wild ? Color.red : Color.gray, lineWidth: t.wild ? 2 : 1)
            if !t.hidden { Text(t.name).font(.system(size: small ? 9 : 12)).foregroundColor(.black) }
        }
        .frame(width: w, height: w * 1.35)
        .opacity(t.taken ? 0.4 : 1)
        .accessibilityLabel(t.name)
    }
}

struct TileRow: SwiftUI.View {
    let tiles: [TileView]
    var small = false
    var body: some SwiftUI.View {
        ScrollView(.horizontal) { HStack(spacing: 2) { ForEach(Array(tiles.enumerated()), id: \.offset) { TileFace(t: $0.element, small: small) } } }
    }
}

struct SeatRow: SwiftUI.View {
    let s: SeatView
    var body: some SwiftUI.View {
        VStack(alignment: .leading, spacing: 2) {
            Text([s.name, s.badge, s.piao, String(s.score)].compactMap { $0 }.joined(separator: " · "))
                .font(.footnote).foregroundColor(s.isTurn ? .yellow : .white)
            TileRow(tiles: s.melds.flatMap { $0 } + s.flowers, small: true)
            TileRow(tiles: s.discards, small: true)
        }
    }
}

struct TableScreen: SwiftUI.View {
    let t: TableView
    let tap: (Tap) -> Void
    var body: some SwiftUI.View {
        ScrollView {
            VStack(alignment: .leading, spacing: 6) {
                Text(t.title).foregroundColor(.white)
                HStack {
                    Text(t.status).foregroundColor(.white)
                    Text("\(t.wallLabel) \(t.wallLeft)").foregroundColor(.white)
                    if let c = t.countdownSecs { Text("⏱ \(c)").foregroundColor(.yellow) }
                    if let w = t.wild { TileFace(t: w, small: true) }
                }
                ForEach(Array(t.seats.dropFirst().enumerated()), id: \.offset) { SeatRow(s: $0.element) }
                if let me = t.seats.first { SeatRow(s: me) }
                if let h = t.hint { VStack(alignment: .leading) { Text(h.advice); Text(h.reason).font(.caption) }.padding(6).background(Color.white.opacity(0.9)) }
                HStack { ForEach(t.piaoChoices + t.chowChoices, id: \.name) { ModelButton(b: $0, tap: tap) } }
                ScrollView(.horizontal) {
                    HStack(spacing: 2) {
                        ForEach(Array((t.hand + (t.drawn.map { [$0] } ?? [])).enumerated()), id: \.offset) { item in
                            SwiftUI.Button { tap(item.element.tap) } label: { TileFace(t: item.element.tile) }
                                .disabled(!item.element.enabled)
                                .offset(y: item.element.suggested ? -6 : 0)
                                .accessibilityLabel(item.element.tile.name)
                        }
                    }
                }
                HStack { ForEach(t.claimBar, id: \.name) { ModelButton(b: $0, tap: tap) } }
                HStack { ModelButton(b: t.hintButton, tap: tap); ModelButton(b: t.autoPlay, tap: tap); ModelButton(b: t.back, tap: tap) }
            }.padding(8)
        }
        .background(Color(red: 0.04, green: 0.36, blue: 0.23))
    }
}

struct ResultScreen: SwiftUI.View {
    let r: ResultView
    let tap: (Tap) -> Void
    var body: some SwiftUI.View {
        VStack(alignment: .leading, spacing: 6) {
            Text(r.heading).font(.title)
            Text(r.outcome)
            ForEach(Array(r.fans.enumerated()), id: \.offset) { Text("\($0.element.name) ×\($0.element.count)  \($0.element.points)") }
            Text(String(r.total))
            ForEach(Array(r.payments.enumerated()), id: \.offset) { Text("\($0.element.seat)  \($0.element.delta)  (\($0.element.kong))") }
            if let f = r.fairness { Text(f) }
            HStack { ModelButton(b: r.next, tap: tap); if let h = r.home { ModelButton(b: h, tap: tap) } }
        }.padding()
    }
}
