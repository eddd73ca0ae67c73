//! Which key presses which button: the terminal's only addition to the model's views. Every
//! button of a view gets a key, in the order it is drawn, whether enabled or not (so 碰 stays
//! on the same key from one claim to the next): the tiles of the hand the letters a–n, a
//! keypad's one-character keys their own character, the rest 1–9, 0, then the letters left.
//! Esc is the screen's way back and Backspace a keypad's last key (删除), as in the page.

use tongcheng_app::Tap;
use tongcheng_app::view::{Button, HandTile, View};

/// A button as the terminal offers it.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub key: char,
    pub label: String,
    /// The accessible name: a line may name a button by it (五饼, 碰, 单机对战).
    pub name: String,
    pub enabled: bool,
    pub tap: Tap,
}

/// The keys of one view.
#[derive(Debug, Default)]
pub struct Keys {
    pub targets: Vec<Target>,
    /// Esc: the screen's way back (返回, 取消, 大厅).
    pub back: Option<Tap>,
    /// Backspace: a keypad's last key.
    pub delete: Option<Tap>,
}

const HAND_KEYS: &str = "abcdefghijklmn";
const POOL: &str = "1234567890opqrstuvwxyzabcdefghijklmnABCDEFGHIJKLMNOPQRSTUVWXYZ";

impl Keys {
    pub fn of(view: &View) -> Keys {
        let mut b = Builder::default();
        match view {
            View::Home(v) => {
                b.buttons(&v.buttons);
                b.button_opt(v.online.retry.as_ref());
            }
            View::NewMatch(v) => {
                for p in &v.pickers {
                    b.buttons(&p.options);
                }
                b.button(&v.start);
                b.back(&v.back);
            }
            View::Table(v) => {
                for h in v.hand.iter().chain(&v.drawn) {
                    b.hand(h);
                }
                b.buttons(&v.piao_choices);
                b.buttons(&v.chow_choices);
                b.buttons(&v.claim_bar);
                b.button(&v.hint_button);
                b.button(&v.auto_play);
                b.back(&v.back);
            }
            View::Result(v) => {
                b.button(&v.next);
                if let Some(home) = &v.home {
                    b.back(home);
                }
            }
            View::Settings(v) => {
                for p in &v.pickers {
                    b.buttons(&p.options);
                }
                b.button(&v.link);
                b.back(&v.back);
            }
            View::MyHands(v) => {
                b.buttons(&v.stats_rules.options);
                b.button_opt(v.sync.as_ref().map(|s| &s.sync_now));
                for h in &v.hands {
                    b.button(&h.open);
                }
                b.button(&v.previous);
                b.button(&v.next);
                b.back(&v.back);
            }
            View::Replay(v) => {
                b.buttons(&v.controls);
                b.back(&v.back);
            }
            View::Queue(v) => b.back(&v.cancel),
            View::Room(v) => {
                b.buttons(&v.people.options);
                b.button(&v.open);
                b.keypad(&v.keypad);
                b.button(&v.join);
                b.back(&v.back);
            }
            View::Tournaments(v) => {
                b.buttons(&v.items);
                b.back(&v.back);
            }
            View::Link(v) => {
                b.button(&v.show_code);
                b.keypad(&v.keypad);
                b.button(&v.join);
                b.back(&v.back);
            }
            View::Tournament(v) => {
                b.buttons(&v.actions);
                b.back(&v.back);
            }
        }
        b.finish()
    }

    /// The key of the hand's `i`th tile (the drawn one last): two 五饼 share a tap, not a key.
    pub fn hand_key(i: usize) -> Option<char> {
        HAND_KEYS.chars().nth(i)
    }

    /// The key drawn beside the button with this tap.
    #[cfg(test)]
    pub fn key(&self, tap: &Tap) -> Option<char> {
        self.targets.iter().find(|t| &t.tap == tap).map(|t| t.key)
    }

    /// The key of this button: its tap and its label (开局 and 上一步 share a tap at the
    /// replay's start).
    pub fn key_of(&self, b: &Button) -> Option<char> {
        self.targets
            .iter()
            .find(|t| t.tap == b.tap && t.label == b.label)
            .map(|t| t.key)
    }

    /// The enabled button a key press means.
    pub fn pressed(&self, key: char) -> Option<&Tap> {
        self.targets
            .iter()
            .find(|t| t.key == key && t.enabled)
            .map(|t| &t.tap)
    }

    /// The enabled button a typed line means: its key (`Esc` too), its name or its label
    /// (the first of two 五饼), with any case for letters.
    pub fn typed(&self, line: &str) -> Option<&Tap> {
        let line = line.trim();
        if line.eq_ignore_ascii_case("esc") {
            return self.back.as_ref();
        }
        let mut chars = line.chars();
        if let (Some(c), None) = (chars.next(), chars.next())
            && let Some(tap) = self
                .pressed(c)
                .or_else(|| self.pressed(c.to_ascii_lowercase()))
        {
            return Some(tap);
        }
        self.targets
            .iter()
            .filter(|t| t.enabled)
            .find(|t| t.name == line || t.label == line || t.name.eq_ignore_ascii_case(line))
            .map(|t| &t.tap)
    }
}

#[derive(Default)]
struct Builder {
    /// (button, key fixed for it) in the order drawn; the rest are given keys at the end.
    items: Vec<(Target, Option<char>)>,
    back: Option<Tap>,
    delete: Option<Tap>,
    hand: usize,
}

impl Builder {
    fn target(b: &Button) -> Target {
        Target {
            key: ' ',
            label: b.label.clone(),
            name: b.name.clone(),
            enabled: b.enabled,
            tap: b.tap.clone(),
        }
    }

    fn button(&mut self, b: &Button) {
        self.items.push((Self::target(b), None));
    }

    fn button_opt(&mut self, b: Option<&Button>) {
        if let Some(b) = b {
            self.button(b);
        }
    }

    fn buttons(&mut self, list: &[Button]) {
        for b in list {
            self.button(b);
        }
    }

    fn back(&mut self, b: &Button) {
        if b.enabled {
            self.back = Some(b.tap.clone());
        }
        self.button(b);
    }

    fn hand(&mut self, h: &HandTile) {
        let key = Keys::hand_key(self.hand);
        self.hand += 1;
        let target = Target {
            key: ' ',
            label: h.tile.name.clone(),
            name: h.tile.name.clone(),
            enabled: h.enabled,
            tap: h.tap.clone(),
        };
        self.items.push((target, key));
    }

    /// A keypad: keys of one character are their own key (lower case), the last is 删除.
    fn keypad(&mut self, keys: &[Button]) {
        for b in keys {
            let mut chars = b.label.chars();
            let own = match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_alphanumeric() => Some(c.to_ascii_lowercase()),
                _ => None,
            };
            self.items.push((Self::target(b), own));
        }
        if let Some(last) = keys.last().filter(|b| b.enabled) {
            self.delete = Some(last.tap.clone());
        }
    }

    fn finish(self) -> Keys {
        let fixed: Vec<char> = self.items.iter().filter_map(|(_, k)| *k).collect();
        let mut pool = POOL.chars().filter(|c| !fixed.contains(c));
        let mut seen = Vec::new();
        let targets = self
            .items
            .into_iter()
            .filter_map(|(mut t, key)| {
                // A key already given (a letter of the hand) is never given twice.
                t.key = key.or_else(|| pool.find(|c| !seen.contains(c)))?;
                seen.push(t.key);
                Some(t)
            })
            .collect();
        Keys {
            targets,
            back: self.back,
            delete: self.delete,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tongcheng_app::{App, Event, Settings};

    fn app() -> App {
        App::new(Settings::default(), None, 7, 0)
    }

    fn press(app: &mut App, line: &str) {
        let keys = Keys::of(&app.view());
        let tap = keys
            .typed(line)
            .unwrap_or_else(|| panic!("no button '{line}' on {:?}", app.view()))
            .clone();
        app.update(Event::Tap { tap });
    }

    #[test]
    fn home_buttons_are_numbered_in_order_and_named() {
        let app = app();
        let keys = Keys::of(&app.view());
        let View::Home(home) = app.view() else {
            panic!("home first")
        };
        assert_eq!(keys.targets[0].key, '1');
        assert_eq!(keys.targets[0].name, home.buttons[0].name);
        assert_eq!(keys.typed("1"), Some(&home.buttons[0].tap));
        assert_eq!(keys.typed("单机对战"), Some(&Tap::PlayBots));
        assert_eq!(keys.typed("no such button"), None);
    }

    #[test]
    fn the_hand_is_lettered_and_the_claim_bar_keeps_its_keys() {
        let mut app = app();
        press(&mut app, "单机对战");
        press(&mut app, "开始");
        let mut now_ms = 0;
        // Until the player may discard: the bots (and the dealer's draw) go on the clock.
        let table = loop {
            now_ms += 600;
            app.update(Event::Tick { now_ms });
            if let View::Table(t) = app.view()
                && t.hand.iter().chain(&t.drawn).any(|h| h.enabled)
            {
                break t;
            }
            assert!(now_ms < 120_000, "the player was never asked to discard");
        };
        let keys = Keys::of(&View::Table(table.clone()));
        assert_eq!(keys.key(&table.hand[0].tap), Some('a'));
        let tiles = table.hand.len() + usize::from(table.drawn.is_some());
        let claim_keys: Vec<char> = table
            .claim_bar
            .iter()
            .map(|b| keys.key(&b.tap).unwrap())
            .collect();
        assert_eq!(claim_keys, vec!['1', '2', '3', '4', '5']);
        assert_eq!(keys.back, Some(table.back.tap.clone()));
        // Every key is given once.
        let mut all: Vec<char> = keys.targets.iter().map(|t| t.key).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), keys.targets.len());
        assert_eq!(keys.targets.len(), tiles + 5 + 3);
        // A tile typed by its name discards it: the hand is one shorter.
        let name = table.hand[0].tile.name.clone();
        press(&mut app, &name);
        let View::Table(after) = app.view() else {
            panic!("still at the table")
        };
        assert_eq!(
            after.hand.len() + usize::from(after.drawn.is_some()),
            tiles - 1
        );
    }

    #[test]
    fn a_keypad_types_with_its_own_characters_and_backspace_deletes() {
        use tongcheng_app::view::{Picker, RoomView};
        let button = |label: &str, tap: Tap| Button::new(label, true, tap);
        let mut keypad: Vec<Button> = (1..=9)
            .chain([0])
            .map(|d| button(&d.to_string(), Tap::Digit { digit: d }))
            .collect();
        keypad.push(button("删除", Tap::DeleteDigit));
        let room = RoomView {
            title: "好友房".into(),
            rules: String::new(),
            people: Picker {
                label: String::new(),
                options: (2..=4)
                    .map(|n| button(&n.to_string(), Tap::RoomPeople { people: n }))
                    .collect(),
            },
            open: button("开房", Tap::OpenRoom),
            code_label: String::new(),
            code: String::new(),
            keypad,
            join: button("加入房间", Tap::JoinRoom),
            back: button("返回", Tap::Back),
        };
        let keys = Keys::of(&View::Room(room.clone()));
        assert_eq!(keys.delete, Some(Tap::DeleteDigit));
        assert_eq!(keys.key(&Tap::Digit { digit: 7 }), Some('7'));
        assert_eq!(keys.pressed('7'), Some(&Tap::Digit { digit: 7 }));
        assert_eq!(keys.typed("开房"), Some(&Tap::OpenRoom));
        // The digits are the keypad's: the people picker (labelled 2–4 too) takes other keys.
        assert_eq!(keys.key(&Tap::RoomPeople { people: 2 }), Some('o'));
        assert_eq!(keys.back, Some(Tap::Back));
    }
}
