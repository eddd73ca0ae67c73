//! The app model in the browser: [`WebApp`] wraps [`tongcheng_app::App`] for JavaScript.
//! Events, effects, settings and views cross as JSON text (the app crate's serde forms), so
//! the face is typed by one definition (the Rust one) and the binding stays a few lines.

use tongcheng_app::{App, Event, Settings};
use wasm_bindgen::prelude::*;

/// The app, as the page holds it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct WebApp {
    app: App,
}

#[wasm_bindgen]
impl WebApp {
    /// The app as it opens: the kept settings and match (JSON, or empty), a random seed (two
    /// 32-bit halves: JavaScript numbers hold 53 bits) and the page's clock in milliseconds.
    #[wasm_bindgen(constructor)]
    pub fn new(
        settings: &str,
        kept_match: &str,
        seed_hi: u32,
        seed_lo: u32,
        now_ms: f64,
    ) -> WebApp {
        let settings: Settings = serde_json::from_str(settings).unwrap_or_default();
        let kept = (!kept_match.is_empty()).then_some(kept_match);
        let seed = u64::from(seed_hi) << 32 | u64::from(seed_lo);
        WebApp {
            app: App::new(settings, kept, seed, now_ms.max(0.0) as u64),
        }
    }

    /// One event (`{"event":"tap","tap":{…}}` or `{"event":"tick","now_ms":…}`); the effects
    /// as a JSON array. An event that does not read changes nothing and gives no effect.
    pub fn update(&mut self, event: &str) -> String {
        match serde_json::from_str::<Event>(event) {
            Ok(e) => serde_json::to_string(&self.app.update(e)).unwrap_or_else(|_| "[]".into()),
            Err(_) => "[]".into(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_in_and_out() {
        let mut app = WebApp::new("", "", 0, 9, 0.0);
        let home: serde_json::Value = serde_json::from_str(&app.view()).unwrap();
        assert_eq!(home["screen"], "home");
        assert_eq!(home["buttons"][0]["name"], "单机对战");
        assert_eq!(app.lang(), "zh-CN");
        assert_eq!(app.update("not json"), "[]");
        let tap = home["buttons"][0]["tap"].to_string();
        app.update(&format!("{{\"event\":\"tap\",\"tap\":{tap}}}"));
        let next: serde_json::Value = serde_json::from_str(&app.view()).unwrap();
        assert_eq!(next["screen"], "new_match");
    }
}
