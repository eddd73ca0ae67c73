// The iOS app around the Rust app model: it draws the view the model gives, passes taps back,
// and does what only the platform can — the Keychain, sound, and telling the model when the
// network comes and goes. Every screen's state, text and decision is the model's (tested on
// the JVM through the Kotlin bindings of the same library); nothing here reads the game.
import AVFoundation
import Network
import Security
import SwiftUI
import TongchengKit

/// The model's view (SwiftUI has a `View` of its own).
typealias Screen = TongchengKit.View

/// The server the app logs in to and plays on (`https://…`); nil plays offline only.
let serverURL: String? = nil

@main
struct TongchengApp: App {
    @StateObject private var shell = Shell()
    var body: some Scene {
        WindowGroup { AppScreen(shell: shell) }
    }
}

/// Holds the model, receives its screens and sounds, and watches the network.
final class Shell: ObservableObject, AppShell {
    @Published var screen: Screen?
    @Published var failure: String?
    private(set) var model: AppModel?
    private let monitor = NWPathMonitor()

    init() {
        let dir = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        let zone = Int32(TimeZone.current.secondsFromGMT() / 60)
        do {
            model = try AppModel(
                config: AppConfig(dataDir: dir.path, server: serverURL, utcOffsetMin: zone, paceMs: nil),
                vault: KeychainVault(),
                shell: self)
        } catch {
            // The app's own folder cannot be written: the error's words are all there is.
            failure = "\(error)"
        }
        monitor.pathUpdateHandler = { [weak self] path in self?.model?.network(up: path.status == .satisfied) }
        monitor.start(queue: DispatchQueue(label: "tongcheng.network"))
    }

    // Called on the model's thread.
    func draw(view: Screen) {
        DispatchQueue.main.async { self.screen = view }
    }

    func playSound(sound: Sound) {
        let id: SystemSoundID = switch sound {
        case .discard: 1104
        case .claim: 1105
        case .win: 1025
        }
        AudioServicesPlaySystemSound(id)
    }

    // A button's own tap always reads; a failure would change nothing.
    func tap(_ tap: Tap) { try? model?.tap(tap: tap) }

    deinit {
        monitor.cancel()
        model?.shutdown()
    }
}

/// The device key's 32 secret bytes in the Keychain, readable only on this device.
final class KeychainVault: KeyVault {
    private let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "com.tongcheng.device",
        kSecAttrAccount as String: "device-key",
    ]

    func loadSecret() -> Data? {
        var q = query
        q[kSecReturnData as String] = true
        var out: AnyObject?
        return SecItemCopyMatching(q as CFDictionary, &out) == errSecSuccess ? out as? Data : nil
    }

    func storeSecret(secret: Data) {
        var q = query
        q[kSecValueData as String] = secret
        q[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        SecItemDelete(query as CFDictionary)
        SecItemAdd(q as CFDictionary, nil)
    }
}
