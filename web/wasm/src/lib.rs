//! The app model in the browser: [`WebApp`] wraps [`tongcheng_app::App`] for JavaScript.
//! Events, effects, settings and views cross as JSON text (the app crate's serde forms), so
//! the face is typed by one definition (the Rust one) and the binding stays a few lines.
//!
//! The page has no database: its kept hands live on the app crate's [`Shelf`], here, which
//! answers the model's history effects in Rust; the page only keeps the shelf's text (the
//! `keep_shelf` effect) and gives it back when it opens. 同步 runs here too ([`ShelfSync`]):
//! the model's sync becomes requests the page sends like any other.

use serde_json::Value;
use tongcheng_app::shelf_sync::{ShelfSync, SyncStep};
use tongcheng_app::{App, Effect, Event, Settings, Shelf, Tap, View};
use wasm_bindgen::prelude::*;

/// The app, as the page holds it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WebApp {
    app: App,
    shelf: Shelf,
    /// The 同步 in progress, if any.
    sync: Option<ShelfSync>,
}

#[wasm_bindgen]
impl WebApp {
    /// The app as it opens: the kept settings, match and hands (JSON, or empty), a random
    /// seed (two 32-bit halves: JavaScript numbers hold 53 bits), the page's clock in
    /// milliseconds and its time zone (minutes east of UTC).
    #[wasm_bindgen(constructor)]
    pub fn new(
        settings: &str,
        kept_match: &str,
        kept_hands: &str,
        seed_hi: u32,
        seed_lo: u32,
        now_ms: f64,
        utc_offset_min: i32,
    ) -> WebApp {
        let settings: Settings = serde_json::from_str(settings).unwrap_or_default();
        let kept = (!kept_match.is_empty()).then_some(kept_match);
        let seed = u64::from(seed_hi) << 32 | u64::from(seed_lo);
        let mut app = App::new(settings, kept, seed, now_ms.max(0.0) as u64);
        app.set_utc_offset(utc_offset_min);
        app.enable_sync();
        WebApp {
            app,
            shelf: Shelf::from_json(kept_hands),
            sync: None,
        }
    }

    /// Builds the engine's lookup tables now, then plays a few moves of a throwaway match
    /// (its view drawn as JSON each time): the page calls it once the first screen is drawn,
    /// so the player's first tap pays neither for the tables (about 80 ms when built on the
    /// first hint) nor for compiling the code a move runs (the browser compiles WebAssembly
    /// a function at a time on its first call: the first discard of a fresh page took
    /// 49–79 ms, the next ones 3 ms).
    pub fn prepare(&self) {
        tongcheng_app::prepare();
        warm_up();
    }

    /// One event (`{"event":"tap","tap":{…}}` or `{"event":"tick","now_ms":…}`) at the wall
    /// clock `unix_ms`; the effects for the page as a JSON array. History effects are
    /// answered here from the shelf; a kept hand becomes one `keep_shelf` effect with the
    /// shelf's text. An event that does not read changes nothing and gives no effect.
    pub fn update(&mut self, event: &str, unix_ms: f64) -> String {
        let Ok(event) = serde_json::from_str::<Event>(event) else {
            return "[]".into();
        };
        let mut out: Vec<Value> = Vec::new();
        let mut shelf_changed = false;
        let mut queue = vec![event];
        // Answers go back in at once: a few rounds at most (a load answered, nothing more).
        while let Some(e) = queue.pop() {
            // The sync's own answers go to it, not to the model.
            if let Event::Answered { id, status, body } = &e
                && let Some(sync) = self.sync.as_mut().filter(|s| s.owns(*id))
            {
                let step = sync.answer(&mut self.shelf, *status, body.clone());
                shelf_changed = true;
                self.sync_step(step, &mut queue, &mut out);
                continue;
            }
            for fx in self.app.update(e) {
                match &fx {
                    Effect::KeepHand { record, seat } => {
                        let secs = (unix_ms / 1000.0).max(0.0) as i64;
                        self.shelf.keep((**record).clone(), *seat, secs);
                        shelf_changed = true;
                    }
                    Effect::Sync { token } => {
                        let (sync, step) = ShelfSync::start(&self.shelf, token.clone());
                        self.sync = Some(sync);
                        self.sync_step(step, &mut queue, &mut out);
                    }
                    _ => match self.shelf.answer(&fx) {
                        Some(answer) => queue.push(answer),
                        None => out.extend(serde_json::to_value(&fx).ok()),
                    },
                }
            }
        }
        if shelf_changed {
            out.push(serde_json::json!({"effect": "keep_shelf", "json": self.shelf.to_json()}));
        }
        serde_json::to_string(&out).unwrap_or_else(|_| "[]".into())
    }

    /// A step of the sync: its request goes to the page, its end to the model.
    fn sync_step(&mut self, step: SyncStep, queue: &mut Vec<Event>, out: &mut Vec<Value>) {
        match step {
            SyncStep::Send(request) => out.extend(serde_json::to_value(&request).ok()),
            SyncStep::Finished(event) => {
                self.sync = None;
                queue.push(event);
            }
        }
    }

    /// The player's language as a BCP 47 tag (the page's `lang`).
    pub fn lang(&self) -> String {
        self.app.settings().lang.tag().into()
    }

    /// The screen to draw, as JSON.
    pub fn view(&self) -> String {
        serde_json::to_string(&self.app.view()).unwrap_or_else(|_| "null".into())
    }
}

/// Two discards of a match against bots, every screen on the way serialized as the page
/// reads it. Nothing is kept: the app is dropped.
fn warm_up() {
    let mut app = App::new(Settings::default(), None, 0x5eed, 0);
    for tap in [Tap::PlayBots, Tap::Start] {
        app.update(Event::Tap { tap });
    }
    let (mut now_ms, mut discards) = (0, 0);
    while discards < 2 && now_ms < 60_000 {
        now_ms += 600;
        app.update(Event::Tick { now_ms });
        let view = app.view();
        let _ = serde_json::to_string(&view);
        if let View::Table(t) = view
            && let Some(tile) = t.drawn.iter().chain(t.hand.iter()).find(|h| h.enabled)
        {
            app.update(Event::Tap {
                tap: tile.tap.clone(),
            });
            discards += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tap(app: &mut WebApp, tap: &Value) -> Vec<Value> {
        let fx = app.update(&format!("{{\"event\":\"tap\",\"tap\":{tap}}}"), 1.7e12);
        serde_json::from_str(&fx).unwrap()
    }

    fn view(app: &WebApp) -> Value {
        serde_json::from_str(&app.view()).unwrap()
    }

    #[test]
    fn the_warm_up_plays_its_own_match_and_leaves_the_players_alone() {
        let app = WebApp::new("", "", "", 0, 9, 0.0, 480);
        app.prepare();
        assert_eq!(view(&app)["screen"], "home");
    }

    #[test]
    fn json_in_and_out() {
        let mut app = WebApp::new("", "", "", 0, 9, 0.0, 480);
        let home = view(&app);
        assert_eq!(home["screen"], "home");
        assert_eq!(home["buttons"][0]["name"], "单机对战");
        assert_eq!(app.lang(), "zh-CN");
        assert_eq!(app.update("not json", 0.0), "[]");
        tap(&mut app, &home["buttons"][0]["tap"]);
        assert_eq!(view(&app)["screen"], "new_match");
    }

    #[test]
    fn a_finished_hand_goes_on_the_shelf_and_shows_under_my_hands() {
        let mut app = WebApp::new("", "", "", 0, 5, 0.0, 480);
        tap(&mut app, &serde_json::json!({"tap": "play_bots"}));
        tap(&mut app, &serde_json::json!({"tap": "start"}));
        // 托管, and the page's timer wakes the model for every move until the hand is over.
        let mut fx = tap(&mut app, &serde_json::json!({"tap": "auto_play"}));
        let mut seen = fx.clone();
        while let Some(at) = fx.iter().find_map(|e| e["now_ms"].as_f64()) {
            fx = serde_json::from_str(
                &app.update(&format!("{{\"event\":\"tick\",\"now_ms\":{at}}}"), 1.7e12),
            )
            .unwrap();
            seen.extend(fx.iter().cloned());
        }
        let kept = seen
            .iter()
            .find(|e| e["effect"] == "keep_shelf")
            .expect("the shelf is kept");
        assert!(!seen.iter().any(|e| e["effect"] == "keep_hand"));
        let text = kept["json"].as_str().unwrap().to_string();
        // The page opens again with what it kept.
        let mut again = WebApp::new("", "", &text, 0, 6, 0.0, 480);
        let fx = tap(&mut again, &serde_json::json!({"tap": "my_hands"}));
        assert!(fx.is_empty(), "loads are answered inside: {fx:?}");
        let list = view(&again);
        assert_eq!(list["screen"], "my_hands");
        assert_eq!(list["hands"].as_array().unwrap().len(), 1);
        tap(&mut again, &list["hands"][0]["open"]["tap"]);
        assert_eq!(view(&again)["screen"], "replay");
    }
}
