// Mirrors android/presenter (TablePresenter.kt and Hints.kt), which the JVM tests exercise
// against the real library: the table screen's logic on top of the generated bindings. Keep
// the two in step; wording and rules of display are the Kotlin ones.
import Foundation

/// A tile as the screen draws it; `dimmed` for a discard taken into another seat's meld.
public struct TileUi: Hashable {
    public let code: String
    public let glyph: String
    public let suit: String
    public let tappable: Bool
    public let dimmed: Bool
    /// The Hangzhou 财神, marked in the hand.
    public var wild: Bool = false
}

/// A button under the hand: claim, pass, win, kong.
public struct ButtonUi: Hashable {
    public let label: String
    public let action: ActionModel
}

/// One seat around the table.
public struct SeatUi: Hashable {
    public let seat: Int
    public let wind: String
    public let isYou: Bool
    public let isTurn: Bool
    public let isDealer: Bool
    public let score: Int
    public let concealed: Int
    public let melds: [String]
    public let discards: [TileUi]
    public let flowers: Int

    /// The seat's line above its discards: "S (dealer) ▶ · +12 · 10 tiles · 2 flowers".
    public var line: String {
        var head = wind
        if isDealer { head += " (dealer)" }
        if isTurn { head += " ▶" }
        var parts = [head, signed(score), concealed == 1 ? "1 tile" : "\(concealed) tiles"]
        if flowers == 1 { parts.append("1 flower") } else if flowers > 1 { parts.append("\(flowers) flowers") }
        return parts.joined(separator: " · ")
    }
}

/// Everything the table screen shows: the screen renders this and nothing else.
public struct TableUi: Hashable {
    public let title: String
    public let status: String
    public let seats: [SeatUi]
    public let hand: [TileUi]
    public let drawn: TileUi?
    public let buttons: [ButtonUi]
    public let wall: Int
    /// Seconds left for your decision, as the table's clock says; nil when it is untimed.
    public let secondsLeft: Int?
    /// 托管: your seat plays itself until you take it back (`autoPlay(false)`).
    public let autoPlay: Bool
    public let resultLines: [String]
    public let handFinished: Bool
    public let matchFinished: Bool
    public let error: String?
}

/// "+12", "−4" (a real minus sign), "0".
public func signed(_ v: Int) -> String { v > 0 ? "+\(v)" : v < 0 ? "−\(-v)" : "0" }

/// The words of an error from the core (its `detail`), without the Swift enum around it.
public func message(of error: Error) -> String {
    guard let e = error as? TongchengError else { return error.localizedDescription }
    switch e {
    case .IllegalAction(let m), .InvalidInput(let m), .Storage(let m), .UnusableHistory(let m),
         .Network(let m), .Cancelled(let m):
        return m
    case .NotFound(_, let m), .NotLoggedIn(_, let m), .Server(_, let m):
        return m
    }
}

/// The server's stable error code (`queue_timeout`, `room_full`, …) when the server refused;
/// nil for what the phone found itself.
public func serverCode(of error: Error) -> String? {
    switch error as? TongchengError {
    case .NotFound(let code, _)?, .NotLoggedIn(let code, _)?, .Server(let code, _)?: return code
    default: return nil
    }
}

/// The phone's monotonic clock in milliseconds, as the table's clock is driven (never the wall
/// clock, which the user may change).
public func phoneClockMs() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

/// Time limits, timeouts and 托管 are the core table's: the view lets time pass with `tick()`
/// and draws the countdown the model carries.
public final class TablePresenter {
    private let session: GameSession
    private let clock: () -> UInt64
    public private(set) var state: TableUi

    public init(session: GameSession, clock: @escaping () -> UInt64 = phoneClockMs) {
        self.session = session
        self.clock = clock
        self.state = TablePresenter.render(session.table(), error: nil)
    }

    /// Lets the bots play until it is the human's turn; call once at the start of a hand.
    public func start() -> TableUi { update { try session.advance(nowMs: clock()) } }

    /// Time passes: the table plays whatever is due now (the timeout action once the clock has
    /// run out, the stand-in's moves on 托管) and the countdown moves on. Views call it a few
    /// times a second.
    public func tick() -> TableUi { update { try session.advance(nowMs: clock()) } }

    /// Hands the seat to its stand-in (托管) or takes it back.
    public func autoPlay(_ on: Bool) -> TableUi {
        update {
            _ = session.setAutoPlay(on: on)
            return try session.advance(nowMs: clock())
        }
    }

    /// A tap on a tile of the hand: discards it when a discard is legal.
    public func tapTile(_ code: String) -> TableUi {
        let legal = session.table().pending?.legal ?? []
        guard let discard = legal.first(where: { if case .discard(let t) = $0 { return t == code }; return false }) else {
            state = state.with(error: "You cannot discard \(code) now")
            return state
        }
        return press(discard)
    }

    /// A button (or any action): applies it, then lets the bots play on.
    public func press(_ action: ActionModel) -> TableUi {
        update {
            let now = clock()
            try session.act(action: action, nowMs: now)
            return try session.advance(nowMs: now)
        }
    }

    public func hint() -> HintModel? { session.hint() }

    /// The hint formatted for the hint panel.
    public func hintUi() -> HintUi? { session.hint().map { HintUi.of($0) } }

    /// Deals the next hand of a match; false when the match is over.
    public func nextHand() -> Bool {
        do {
            let moved = try session.nextHand()
            if moved { _ = start() }
            return moved
        } catch {
            state = TablePresenter.render(session.table(), error: message(of: error))
            return false
        }
    }

    private func update(_ body: () throws -> TableModel) -> TableUi {
        do {
            state = TablePresenter.render(try body(), error: nil)
        } catch {
            state = TablePresenter.render(session.table(), error: message(of: error))
        }
        return state
    }

    /// The countdown beside the status while a decision is timed: "8 s left"; nil otherwise.
    public static func countdown(_ ui: TableUi) -> String? {
        guard let s = ui.secondsLeft, !ui.handFinished else { return nil }
        return "\(s) s left"
    }

    /// Whole seconds left, rounded up (a countdown shows 1 until the time is out).
    public static func seconds(_ ms: UInt64?) -> Int? { ms.map { Int(($0 + 999) / 1000) } }

    public static func label(_ a: ActionModel) -> String {
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

    static func tileUi(_ m: TileModel, tappable: Bool, dimmed: Bool = false) -> TileUi {
        TileUi(code: m.code, glyph: m.glyph, suit: m.suit, tappable: tappable, dimmed: dimmed)
    }

    /// Another seat's discard laid face down (暗牌): a tile back, no code.
    static func faceDown(dimmed: Bool) -> TileUi {
        TileUi(code: "", glyph: "🀫", suit: "", tappable: false, dimmed: dimmed)
    }

    public static func render(_ t: TableModel, error: String?) -> TableUi {
        let canDiscard = t.pending?.kind == .turn
        var lines: [String] = []
        if let r = t.result {
            lines.append(r.winner.map { "Seat \($0) wins" + (r.selfDrawn ? " (self-drawn)" : "") } ?? "Draw: the wall is exhausted")
            lines += r.fans.map { "\($0.zh) \($0.en)  \($0.points)" + ($0.count > 1 ? " ×\($0.count)" : "") }
            if r.winner != nil { lines.append("Total \(r.total)") }
            lines.append("Scores: " + r.deltas.map { String($0) }.joined(separator: " "))
        }
        let status: String
        if t.finished { status = "Hand over" }
        else if t.autoPlay { status = "Auto-play (托管): your seat plays itself" }
        else if let p = t.pending { status = p.kind == .turn ? "Your turn: tap a tile to discard" : "Claim \(p.tile?.code ?? "")?" }
        else { status = "Waiting for the other players" }
        let seats = t.seats.map { s in
            SeatUi(
                seat: Int(s.seat),
                wind: s.wind,
                isYou: s.isYou,
                isTurn: s.isTurn,
                isDealer: s.isDealer,
                score: Int(s.score),
                concealed: Int(s.concealedCount),
                melds: s.melds.map { m in m.tiles.isEmpty ? "🀫🀫🀫🀫" : m.tiles.map { $0.glyph }.joined() },
                discards: s.discards.map { d in d.tile.map { tileUi($0, tappable: false, dimmed: d.claimed) } ?? faceDown(dimmed: d.claimed) },
                flowers: s.flowers.count
            )
        }
        return TableUi(
            title: "Hand \(t.handNumber) · \(t.prevalentWind) round" + (t.wild.map { " · 财神 \($0.glyph) \($0.code)" } ?? ""),
            status: status,
            seats: seats,
            hand: t.hand.map { m in var u = tileUi(m, tappable: canDiscard); u.wild = m.code == t.wild?.code; return u },
            drawn: t.drawn.map { m in var u = tileUi(m, tappable: canDiscard); u.wild = m.code == t.wild?.code; return u },
            buttons: (t.pending?.legal ?? []).filter { if case .discard = $0 { return false }; return true }
                .map { ButtonUi(label: label($0), action: $0) },
            wall: Int(t.wallRemaining),
            secondsLeft: seconds(t.remainingMs),
            autoPlay: t.autoPlay,
            resultLines: lines,
            handFinished: t.finished,
            matchFinished: t.matchFinished,
            error: error
        )
    }
}

extension TableUi {
    func with(error: String?) -> TableUi {
        TableUi(title: title, status: status, seats: seats, hand: hand, drawn: drawn, buttons: buttons, wall: wall,
                secondsLeft: secondsLeft, autoPlay: autoPlay, resultLines: resultLines, handFinished: handFinished,
                matchFinished: matchFinished, error: error)
    }
}

/// One of the top discard choices, as the hint panel lists it.
public struct DiscardChoiceUi: Hashable {
    public let tile: TileUi
    /// "Discard 5m · 1 step from ready · 24 live useful tiles (3m 6m 4p)".
    public let line: String
    /// "Keeps 清一色 Full Flush, about 24 points", or nil.
    public let value: String?
    /// "Beats 7p: 38 live useful tiles against 24.", or nil.
    public let versus: String?
    public let recommended: Bool
}

/// The hint panel: what to do and why, and for a turn the top choices compared: distance, live
/// useful tiles, the fan target each keeps with rough points, and why it beats the next one.
public struct HintUi: Hashable {
    public let headline: String
    public let reason: String
    public let choices: [DiscardChoiceUi]

    public static let shown = 3

    public static func of(_ h: HintModel) -> HintUi {
        HintUi(
            headline: h.recommended.map { "Suggested: \(TablePresenter.label($0))" } ?? "No suggestion",
            reason: h.reason,
            choices: h.discards.prefix(shown).map { d in
                let live = liveText(Int(d.live)) + (d.useful.trimmingCharacters(in: .whitespaces).isEmpty ? "" : " (\(d.useful))")
                return DiscardChoiceUi(
                    tile: TablePresenter.tileUi(d.tile, tappable: false),
                    line: ["Discard \(d.tile.code)", distance(Int(d.shanten)), live].joined(separator: " · "),
                    value: value(target: d.target, points: d.points),
                    versus: d.versus.flatMap { $0.isEmpty ? nil : $0 },
                    recommended: h.recommended == .discard(tile: d.tile.code)
                )
            }
        )
    }

    /// Shanten in words: "ready", "1 step from ready", "3 steps from ready".
    public static func distance(_ shanten: Int) -> String {
        if shanten < 0 { return "a winning hand" }
        if shanten == 0 { return "ready" }
        return shanten == 1 ? "1 step from ready" : "\(shanten) steps from ready"
    }

    public static func liveText(_ n: Int) -> String { n == 1 ? "1 live useful tile" : "\(n) live useful tiles" }

    public static func points(_ n: UInt32) -> String { n == 1 ? "1 point" : "\(n) points" }

    public static func value(target: String?, points p: UInt32) -> String? {
        switch (target, p) {
        case (let t?, let p) where p > 0: return "Keeps \(t), about \(points(p))"
        case (let t?, _): return "Keeps \(t)"
        case (nil, let p) where p > 0: return "About \(points(p))"
        default: return nil
        }
    }
}
