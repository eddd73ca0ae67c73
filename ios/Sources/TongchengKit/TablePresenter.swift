// Mirrors android/presenter/TablePresenter.kt (which the JVM tests exercise): the table
// screen's logic on top of the generated bindings. Keep the two in step.
import Foundation

public struct TileUi: Hashable {
    public let code: String
    public let glyph: String
    public let suit: String
    public let tappable: Bool
}

public struct ButtonUi: Hashable {
    public let label: String
    public let action: ActionModel
}

public struct TableUi {
    public let title: String
    public let status: String
    public let hand: [TileUi]
    public let drawn: TileUi?
    public let buttons: [ButtonUi]
    public let wall: Int
    public let secondsLimit: Int
    public let resultLines: [String]
    public let handFinished: Bool
    public let matchFinished: Bool
    public let error: String?
}

public final class TablePresenter {
    private let session: GameSession
    public private(set) var state: TableUi

    public init(session: GameSession) {
        self.session = session
        self.state = TablePresenter.render(session.table(), error: nil)
    }

    public func start() -> TableUi { update { try session.advance() } }

    public func tapTile(_ code: String) -> TableUi {
        let legal = session.table().pending?.legal ?? []
        guard let discard = legal.first(where: { if case .discard(let t) = $0 { return t == code }; return false }) else {
            return state
        }
        return press(discard)
    }

    public func press(_ action: ActionModel) -> TableUi {
        update {
            _ = try session.act(action: action)
            return try session.advance()
        }
    }

    public func timeout() -> TableUi {
        guard let fallback = session.table().pending?.onTimeout else { return state }
        return press(fallback)
    }

    public func hint() -> HintModel? { session.hint() }

    public func nextHand() -> Bool {
        do {
            let moved = try session.nextHand()
            if moved { _ = start() }
            return moved
        } catch {
            state = TablePresenter.render(session.table(), error: "\(error)")
            return false
        }
    }

    private func update(_ body: () throws -> TableModel) -> TableUi {
        do {
            state = TablePresenter.render(try body(), error: nil)
        } catch {
            state = TablePresenter.render(session.table(), error: "\(error)")
        }
        return state
    }

    static func label(_ a: ActionModel) -> String {
        switch a {
        case .discard(let t): return "Discard \(t)"
        case .chow(let low): return "Chow \(low)"
        case .pung: return "Pung"
        case .kong: return "Kong"
        case .concealedKong(let t), .addedKong(let t): return "Kong \(t)"
        case .win: return "Win"
        case .pass: return "Pass"
        }
    }

    static func render(_ t: TableModel, error: String?) -> TableUi {
        let canDiscard = t.pending?.kind == .turn
        let tile = { (m: TileModel) in TileUi(code: m.code, glyph: m.glyph, suit: m.suit, tappable: canDiscard) }
        var lines: [String] = []
        if let r = t.result {
            lines.append(r.winner.map { "Seat \($0) wins" + (r.selfDrawn ? " (self-drawn)" : "") } ?? "Draw: the wall is exhausted")
            lines += r.fans.map { "\($0.zh) \($0.en)  \($0.points)" + ($0.count > 1 ? " ×\($0.count)" : "") }
            if r.winner != nil { lines.append("Total \(r.total)") }
        }
        let status: String
        if t.finished { status = "Hand over" }
        else if let p = t.pending { status = p.kind == .turn ? "Your turn: tap a tile to discard" : "Claim \(p.tile?.code ?? "")?" }
        else { status = "Waiting for the other players" }
        return TableUi(
            title: "Hand \(t.handNumber) · \(t.prevalentWind) round",
            status: status,
            hand: t.hand.map(tile),
            drawn: t.drawn.map(tile),
            buttons: (t.pending?.legal ?? []).filter { if case .discard = $0 { return false }; return true }
                .map { ButtonUi(label: label($0), action: $0) },
            wall: Int(t.wallRemaining),
            secondsLimit: Int(t.pending?.timeLimitSecs ?? 0),
            resultLines: lines,
            handFinished: t.finished,
            matchFinished: t.matchFinished,
            error: error
        )
    }
}
