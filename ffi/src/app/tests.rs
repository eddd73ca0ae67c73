//! The phones' driver of the app model, without a phone: a shell that keeps the screens it is
//! given, a vault in memory, the app's folder in a temporary directory.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tongcheng_app::view::TableView;
use tongcheng_app::{Sound, Tap, View};

use super::{AppConfig, AppModel, AppShell};
use crate::online::KeyVault;

#[derive(Default)]
struct Vault(Mutex<Option<Vec<u8>>>);

impl KeyVault for Vault {
    fn load_secret(&self) -> Option<Vec<u8>> {
        self.0.lock().unwrap().clone()
    }
    fn store_secret(&self, secret: Vec<u8>) {
        *self.0.lock().unwrap() = Some(secret);
    }
}

#[derive(Default)]
struct Shell {
    screen: Mutex<(u64, Option<View>)>,
    drawn: Condvar,
    sounds: Mutex<Vec<Sound>>,
}

impl AppShell for Shell {
    fn draw(&self, view: View) {
        let mut s = self.screen.lock().unwrap();
        s.0 += 1;
        s.1 = Some(view);
        self.drawn.notify_all();
    }
    fn play_sound(&self, sound: Sound) {
        self.sounds.lock().unwrap().push(sound);
    }
}

impl Shell {
    /// The first screen after draw number `after` that passes `ok`, and its number.
    fn wait(&self, after: u64, ok: impl Fn(&View) -> bool) -> (u64, View) {
        let until = Instant::now() + Duration::from_secs(60);
        let mut s = self.screen.lock().unwrap();
        loop {
            if s.0 > after
                && let Some(v) = s.1.as_ref().filter(|v| ok(v))
            {
                return (s.0, v.clone());
            }
            let left = until.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "never came; the screen: {:?}", s.1);
            s = self.drawn.wait_timeout(s, left).unwrap().0;
        }
    }
}

impl AppModel {
    /// A tap as a shell sends it: the button's tap text.
    fn tap_(&self, tap: Tap) {
        self.tap(serde_json::to_string(&tap).unwrap()).unwrap();
    }
}

fn dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "tongcheng-ffi-{tag}-{}-{}",
        std::process::id(),
        tongcheng_core::clock::unix_nanos()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn open(dir: &std::path::Path, shell: &Arc<Shell>) -> Arc<AppModel> {
    let config = AppConfig {
        data_dir: dir.display().to_string(),
        server: None,
        utc_offset_min: 480,
        pace_ms: Some(1),
    };
    AppModel::new(config, Arc::new(Vault::default()), shell.clone()).unwrap()
}

/// A person's move on the table: a win, a pass, else the drawn tile or the last that may go.
fn move_on(t: &TableView) -> Option<Tap> {
    let named = |n: &str| t.claim_bar.iter().find(|b| b.name == n && b.enabled);
    named("胡")
        .map(|b| b.tap.clone())
        .or_else(|| t.piao_choices.first().map(|b| b.tap.clone()))
        .or_else(|| t.chow_choices.first().map(|b| b.tap.clone()))
        .or_else(|| named("过").map(|b| b.tap.clone()))
        .or_else(|| {
            t.drawn
                .iter()
                .chain(t.hand.iter().rev())
                .find(|h| h.enabled)
                .map(|h| h.tap.clone())
        })
}

#[test]
fn a_hand_against_bots_is_played_by_taps_kept_in_the_history_and_continued_after_reopening() {
    let dir = dir("journey");
    let shell = Arc::new(Shell::default());
    let app = open(&dir, &shell);
    app.network(false);
    let (n, home) = shell.wait(0, |v| matches!(v, View::Home(_)));
    assert_eq!(app.view(), home, "the snapshot is the screen drawn");
    app.tap_(Tap::PlayBots);
    let (n, _) = shell.wait(n, |v| matches!(v, View::NewMatch(_)));
    app.tap_(Tap::Start);
    let mut seen = n;
    let result = loop {
        let (at, v) = shell.wait(seen, |v| matches!(v, View::Table(_) | View::Result(_)));
        seen = at;
        match v {
            View::Result(r) => break r,
            View::Table(t) => {
                if let Some(tap) = move_on(&t) {
                    app.tap_(tap);
                }
            }
            _ => unreachable!(),
        }
    };
    assert_eq!(result.heading, "结算");
    assert_eq!(result.payments.iter().map(|p| p.delta).sum::<i32>(), 0);
    assert!(!shell.sounds.lock().unwrap().is_empty(), "sounds played");
    app.tap_(result.home.unwrap_or(result.next).tap);
    app.tap_(Tap::MyHands);
    let (_, list) = shell.wait(
        seen,
        |v| matches!(v, View::MyHands(h) if !h.hands.is_empty()),
    );
    let View::MyHands(list) = list else {
        unreachable!()
    };
    assert_eq!(list.hands.len(), 1, "the hand is in the history database");
    app.shutdown();
    drop(app);
    assert!(dir.join("history.db").exists());

    // Opened again: the kept match is offered; a tap after shutdown is dropped quietly.
    let again = Arc::new(Shell::default());
    let app = open(&dir, &again);
    let (_, home) = again.wait(0, |v| matches!(v, View::Home(_)));
    let View::Home(home) = home else {
        unreachable!()
    };
    assert!(
        home.buttons.iter().any(|b| b.tap == Tap::ContinueMatch),
        "{:?}",
        home.buttons
    );
    app.shutdown();
    app.tap_(Tap::MyHands);
    assert!(matches!(
        app.tap("{\"tap\":\"no_such_button\"}".into()),
        Err(crate::TongchengError::InvalidInput { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unreadable_history_is_kept_aside_and_the_home_screen_says_so() {
    let dir = dir("aside");
    std::fs::write(dir.join("history.db"), "not a database").unwrap();
    let shell = Arc::new(Shell::default());
    let app = open(&dir, &shell);
    let (_, home) = shell.wait(0, |v| matches!(v, View::Home(_)));
    let View::Home(home) = home else {
        unreachable!()
    };
    assert!(
        home.notice.as_deref().is_some_and(|n| n.contains("另存")),
        "{:?}",
        home.notice
    );
    app.shutdown();
    let kept: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.unwrap().path()).ok())
        .collect();
    assert!(
        kept.iter().any(|t| t == "not a database"),
        "nothing is lost"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
