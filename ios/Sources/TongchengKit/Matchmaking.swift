// Mirrors android/presenter Matchmaking.kt (JVM-tested against a real server): the queue,
// private room and rating screens' logic. Keep the two in step; wording is the Kotlin one.
// Calls block on the network: call them off the main thread.
import Foundation

/// The rule sets the app offers (the core's presets), with their titles.
public let ruleTitles: [(preset: String, title: String)] = [
    ("guobiao", "国标 Guobiao"), ("hangzhou", "杭州 Hangzhou"), ("hangzhou-mil", "杭州 Hangzhou MIL 2025"),
]

func ruleTitle(_ preset: String) -> String { ruleTitles.first { $0.preset == preset }?.title ?? preset }

/// "0:07", "1:23": how long the player has waited.
public func waitedText(_ ms: UInt64) -> String {
    let s = ms / 1000
    return "\(s / 60):" + String(format: "%02d", Int(s % 60))
}

/// What to tell the player about a failed request.
public func notice(_ error: Error) -> String {
    let m = message(of: error)
    switch error as? TongchengError {
    case .Network?: return "Cannot reach the server. Check the connection and try again."
    case .NotLoggedIn?: return "Your session has ended: log in again."
    case .NotFound?: return "No room has that code. Check the 6 digits with your friend."
    default: break
    }
    switch serverCode(of: error) {
    case "queue_timeout"?: return "No table could be made in time. Try again."
    case "queue_replaced"?: return "You queued again from another device, so this wait ended."
    case "rules_not_accepted"?: return "This server does not play these rules."
    case "room_full"?: return "Every seat in this room is taken."
    case "bad_room"?: return "The server refused these room settings: \(m)"
    default: return m
    }
}

private func people(_ n: Int) -> String { n == 1 ? "1 person" : "\(n) people" }
private func bots(_ n: Int) -> String { n == 1 ? "1 bot" : "\(n) bots" }

/// A table found and sat down at: the online session for the table screen.
public struct SeatedTable {
    public let table: String
    public let title: String
    public let session: OnlineSession
}

// MARK: queue

public struct QueueUi: Equatable {
    public var preset: String
    public var ranked: Bool
    public var waiting: Bool
    public var status: String?
    public var waitedMs: UInt64
    public var seated: String?
    public var notice: String?
}

public final class QueuePresenter {
    private let client: OnlineClient
    private var ticket: QueueTicket?
    private var found: SeatedTable?
    public private(set) var state: QueueUi

    public init(client: OnlineClient, preset: String = "guobiao", ranked: Bool = false) {
        self.client = client
        state = QueueUi(preset: preset, ranked: ranked, waiting: false, status: nil, waitedMs: 0, seated: nil, notice: nil)
    }

    /// Rules and kind are fixed while waiting.
    public func choose(preset: String, ranked: Bool) -> QueueUi {
        if ticket == nil { state.preset = preset; state.ranked = ranked }
        return state
    }

    public func start() -> QueueUi {
        guard ticket == nil, found == nil else { return state }
        do {
            ticket = try client.queue(rules: state.preset, ranked: state.ranked)
            return render(waited: 0, seated: nil, notice: nil)
        } catch {
            return render(waited: 0, seated: nil, notice: notice(error))
        }
    }

    /// Waits up to `timeoutMs` for a table; sits down at it when one is found.
    public func poll(timeoutMs: UInt64 = 250) -> QueueUi {
        guard let t = ticket else { return state }
        do {
            guard let s = try t.waitForTable(timeoutMs: timeoutMs) else {
                return render(waited: t.waitedMs(), seated: nil, notice: nil)
            }
            ticket = nil
            let title = "\(ruleTitle(s.rules)) · \(s.ranked ? "ranked" : "casual") · \(people(Int(s.people))), \(bots(Int(s.bots)))"
            found = SeatedTable(table: s.table, title: title, session: try client.play(table: s.table, people: s.people, rules: nil))
            return render(waited: 0, seated: title, notice: nil)
        } catch {
            ticket = nil
            return render(waited: 0, seated: nil, notice: notice(error))
        }
    }

    /// Gives the place up; seated instead when a table came at that moment.
    public func cancel() -> QueueUi {
        guard let t = ticket else { return state }
        if !t.cancel() { return poll(timeoutMs: 0) }
        ticket = nil
        return render(waited: 0, seated: nil, notice: "You left the queue.")
    }

    /// The table found, once.
    public func takeTable() -> SeatedTable? { defer { found = nil }; return found }

    private func render(waited: UInt64, seated: String?, notice: String?) -> QueueUi {
        let waiting = ticket != nil
        state.waiting = waiting
        state.waitedMs = waiting ? waited : 0
        state.status = waiting ? "Waiting \(waitedText(waited)) · \(ruleTitle(state.preset)) · \(state.ranked ? "ranked" : "casual")" : nil
        state.seated = seated
        state.notice = notice
        return state
    }
}

// MARK: private rooms

public struct RoomUi: Equatable {
    public var code: String?
    public var joined: String?
    public var full: Bool
    public var sameIpWarning: String?
    public var codeInput: String
    public var codeError: String?
    public var canJoin: Bool
    public var notice: String?
}

public final class RoomPresenter {
    private let client: OnlineClient
    private let you: Int64
    private var room: RoomModel?
    public private(set) var state = RoomUi(code: nil, joined: nil, full: false, sameIpWarning: nil,
                                           codeInput: "", codeError: nil, canJoin: false, notice: nil)

    public init(client: OnlineClient, you: Int64) { self.client = client; self.you = you }

    /// Why the typed code cannot be a room code yet; nil while it may still become one.
    public static func codeError(_ code: String) -> String? {
        if code.contains(where: { $0 < "0" || $0 > "9" }) { return "A room code has only digits" }
        if code.count > 6 { return "A room code has 6 digits" }
        return nil
    }

    /// Bots take the `4 - people` other seats at the given levels ("easy", "normal", "hard").
    public func create(preset: String, hands: UInt8, discardSecs: UInt16, claimSecs: UInt16,
                       people: UInt8, bots: [String]) -> RoomUi {
        let s = RoomSettingsModel(rules: preset, hands: hands, firstDiscardSecs: nil, discardSecs: discardSecs,
                                  claimSecs: claimSecs, people: people, bots: bots)
        return ask { try self.client.createRoom(settings: s) }
    }

    public func typeCode(_ text: String) -> RoomUi {
        state.codeInput = text.filter { !$0.isWhitespace }
        return render(notice: state.notice)
    }

    public func join() -> RoomUi {
        guard state.canJoin else { return render(notice: nil) }
        let code = state.codeInput
        return ask { try self.client.joinRoom(code: code) }
    }

    public func refresh() -> RoomUi {
        guard let code = room?.code else { return state }
        return ask { try self.client.room(code: code) }
    }

    public func sitDown() -> SeatedTable? {
        guard let r = room else { return nil }
        do {
            return SeatedTable(table: r.table, title: "Room \(r.code)",
                               session: try client.play(table: r.table, people: r.people, rules: nil))
        } catch {
            _ = render(notice: notice(error))
            return nil
        }
    }

    private func ask(_ call: () throws -> RoomModel) -> RoomUi {
        do { room = try call(); return render(notice: nil) } catch { return render(notice: notice(error)) }
    }

    private func render(notice: String?) -> RoomUi {
        let error = RoomPresenter.codeError(state.codeInput)
        state.codeError = error
        state.canJoin = error == nil && state.codeInput.count == 6
        state.notice = notice
        if let r = room {
            state.code = r.code
            let names = r.players.isEmpty ? "" : ": " + r.players.joined(separator: ", ")
            state.joined = "\(r.admitted) of \(people(Int(r.people))) \(r.admitted == 1 ? "is" : "are") in\(names)"
            state.full = r.admitted >= r.people
            state.sameIpWarning = RoomPresenter.sameIp(r, you: you)
        }
        return state
    }

    public static func sameIp(_ r: RoomModel, you: Int64) -> String? {
        if r.sameIp.isEmpty { return nil }
        let pairs = r.sameIp.map { p -> String in
            let (a, b) = p.second == you ? (p.second, p.first) : (p.first, p.second)
            return a == you ? "you and player \(b)" : "players \(a) and \(b)"
        }
        return "Same network (同IP): " + pairs.joined(separator: "; ") +
            ". Friends at home share one; in a room with strangers it can mean they play together."
    }
}

// MARK: ratings

public struct RatingRowUi: Equatable {
    public let rules: String
    public let rating: String
    public let tier: String
    public let provisional: Bool
    public let games: Int64
    public let detail: String
}

public let tierTitles = ["bronze": "Bronze 青铜", "silver": "Silver 白银", "gold": "Gold 黄金",
                         "platinum": "Platinum 铂金", "diamond": "Diamond 钻石", "master": "Master 大师"]

/// A line per rule set the app knows (rated or not), then any other rule set rated.
public func ratingRows(_ ratings: [RatingModel]) -> [RatingRowUi] {
    let known = ruleTitles.map { t in (t.title, ratings.first { $0.rules == t.preset }) }
    let other = ratings.filter { r in !ruleTitles.contains { $0.preset == r.rules } }.map { ($0.rules, Optional($0)) }
    return (known + other).map { pair in
        let (title, rated) = pair
        guard let r = rated, r.games > 0 else {
            return RatingRowUi(rules: title, rating: "—", tier: "Unrated", provisional: true, games: 0,
                               detail: "No rated matches yet")
        }
        var tier = r.provisionalGames > 0 ? "Provisional \(r.games) of \(r.provisionalGames)" : "Provisional"
        if let t = r.tier, !r.provisional { tier = tierTitles[t] ?? t.capitalized }
        let matches = r.games == 1 ? "1 rated match" : "\(r.games) rated matches"
        return RatingRowUi(rules: title, rating: String(format: "%.1f", r.mu), tier: tier, provisional: r.provisional,
                           games: r.games, detail: "\(matches) · ±" + String(format: "%.1f", r.sigma))
    }
}
