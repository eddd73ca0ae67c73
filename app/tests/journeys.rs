//! User journeys through the app model, in milliseconds and without any face: what a player
//! does, tap by tap, and what each screen then shows.

use tongcheng_app::view::{Button, TableView};
use tongcheng_app::{App, Effect, Event, Lang, Settings, Tap, View};

/// The button named `name` on a list of buttons.
fn named<'a>(buttons: &'a [Button], name: &str) -> &'a Button {
    buttons
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no button {name} among {:?}", names(buttons)))
}

fn names(buttons: &[Button]) -> Vec<&str> {
    buttons.iter().map(|b| b.name.as_str()).collect()
}

fn tap(app: &mut App, tap: Tap) -> Vec<Effect> {
    app.update(Event::Tap { tap })
}

/// What a quick player taps on the table: 胡 when it is on, else 过, else the first tile he
/// may discard (the drawn one first).
fn next_tap(t: &TableView) -> Option<Tap> {
    for name in ["胡", "Win", "过", "Pass"] {
        if let Some(b) = t.claim_bar.iter().find(|b| b.name == name && b.enabled) {
            return Some(b.tap.clone());
        }
    }
    if let Some(c) = t.chow_choices.first() {
        return Some(c.tap.clone());
    }
    t.drawn
        .iter()
        .chain(&t.hand)
        .find(|h| h.enabled)
        .map(|h| h.tap.clone())
}

/// Plays the hand on screen to its result by tapping; the effects seen on the way.
fn play_hand(app: &mut App, now: &mut u64) -> Vec<Effect> {
    let mut effects = Vec::new();
    for _ in 0..2_000 {
        match app.view() {
            View::Table(t) => {
                assert_eq!(t.claim_bar.len(), 5, "the claim bar always has its five");
                match next_tap(&t) {
                    Some(tp) => effects.extend(tap(app, tp)),
                    None => {
                        // Nothing to tap: the table waits for the clock.
                        *now += 1_000;
                        effects.extend(app.update(Event::Tick { now_ms: *now }));
                    }
                }
            }
            View::Result(_) => return effects,
            other => panic!("left the table for {other:?}"),
        }
    }
    panic!("the hand did not end");
}

#[test]
fn first_open_play_a_hand_see_the_result_and_go_home_in_chinese() {
    let mut app = App::new(Settings::default(), None, 42, 0);
    let View::Home(home) = app.view() else {
        panic!("the app opens at home")
    };
    assert_eq!(home.title, "桐城麻将");
    for name in ["单机对战", "快速匹配", "好友房", "我的牌局", "设置"] {
        named(&home.buttons, name);
    }
    assert!(named(&home.buttons, "单机对战").enabled);
    tap(&mut app, Tap::PlayBots);
    let View::NewMatch(new) = app.view() else {
        panic!("单机对战 opens the new match screen")
    };
    assert_eq!(new.pickers.len(), 3);
    assert_eq!(new.pickers[0].options.len(), 5, "the five presets");
    assert!(new.pickers[0].options.iter().any(|b| b.selected));
    tap(
        &mut app,
        Tap::PickRules {
            preset: "guobiao".into(),
        },
    );
    let fx = tap(&mut app, Tap::Start);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::KeepMatch { saved: Some(_) }))
    );
    let View::Table(table) = app.view() else {
        panic!("开始 sits the player at the table")
    };
    assert_eq!(table.seats.len(), 4);
    assert_eq!(table.seats[0].name, "你");
    assert!(table.seats[0].is_you);
    assert_eq!(names(&table.claim_bar), ["吃", "碰", "杠", "胡", "过"]);
    let tiles = table.hand.len() + usize::from(table.drawn.is_some());
    assert!(tiles == 13 || tiles == 14, "{tiles} tiles in hand");
    assert!(
        table.hand.iter().all(|h| !h.tile.name.is_ascii()),
        "tiles named in Chinese"
    );
    // A hint at the first decision.
    if table.hint_button.enabled {
        tap(&mut app, Tap::Hint);
        let View::Table(t) = app.view() else { panic!() };
        let hint = t.hint.expect("a hint when asked");
        assert!(!hint.advice.is_empty());
    }
    let mut now = 0;
    let fx = play_hand(&mut app, &mut now);
    let kept: Vec<_> = fx
        .iter()
        .filter(|e| matches!(e, Effect::KeepHand { .. }))
        .collect();
    assert_eq!(kept.len(), 1, "the finished hand is kept once");
    let View::Result(result) = app.view() else {
        panic!()
    };
    assert_eq!(result.heading, "结算");
    assert_eq!(result.payments.len(), 4);
    assert_eq!(result.payments.iter().map(|p| p.delta).sum::<i32>(), 0);
    let r = app.last_result().expect("a result");
    if r.winner.is_some() {
        assert!(!result.fans.is_empty());
        assert!(
            result.fans.iter().all(|f| !f.name.is_ascii()),
            "fans in Chinese"
        );
        assert_eq!(result.total, r.score.as_ref().unwrap().total);
    } else {
        assert_eq!(result.outcome, "荒牌");
    }
    assert_eq!(result.next.name, "下一局");
    tap(&mut app, Tap::NextHand);
    assert!(
        matches!(app.view(), View::Table(_)),
        "下一局 deals the next hand"
    );
    // Back home: the match is kept and offered again.
    let fx = tap(&mut app, Tap::Back);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::KeepMatch { saved: Some(_) }))
    );
    let View::Home(home) = app.view() else {
        panic!()
    };
    assert_eq!(home.buttons[0].name, "继续牌局");
    tap(&mut app, Tap::ContinueMatch);
    assert!(matches!(app.view(), View::Table(_)));
}

#[test]
fn every_preset_plays_a_hand_in_english_too() {
    for (i, preset) in [
        "guobiao",
        "hangzhou",
        "hangzhou-mil",
        "tongcheng-dianpao",
        "tongcheng-paofeng",
    ]
    .into_iter()
    .enumerate()
    {
        let lang = if i % 2 == 0 { Lang::En } else { Lang::ZhCn };
        let settings = Settings {
            lang,
            ..Settings::default()
        };
        let mut app = App::new(settings, None, 7 + i as u64, 0);
        tap(&mut app, Tap::PlayBots);
        tap(
            &mut app,
            Tap::PickRules {
                preset: preset.into(),
            },
        );
        tap(&mut app, Tap::Start);
        let View::Table(t) = app.view() else {
            panic!("{preset}: no table")
        };
        let bar = names(&t.claim_bar);
        match lang {
            Lang::En => assert_eq!(bar, ["Chow", "Pung", "Kong", "Win", "Pass"]),
            Lang::ZhCn => assert_eq!(bar, ["吃", "碰", "杠", "胡", "过"]),
        }
        if preset.starts_with("hangzhou") {
            assert!(t.wild.is_some(), "{preset}: the 财神 is named");
        }
        let mut now = 0;
        play_hand(&mut app, &mut now);
        let View::Result(r) = app.view() else {
            panic!()
        };
        assert_eq!(r.heading, if lang == Lang::En { "Result" } else { "结算" });
        assert_eq!(
            r.payments.iter().map(|p| p.delta).sum::<i32>(),
            0,
            "{preset}"
        );
    }
}

#[test]
fn the_clock_plays_a_silent_player() {
    let settings = Settings {
        preset: "guobiao".into(),
        clock: tongcheng_core_clock_match(),
        ..Settings::default()
    };
    let mut app = App::new(settings, None, 3, 0);
    tap(&mut app, Tap::PlayBots);
    let fx = tap(&mut app, Tap::Start);
    let wake = fx.iter().find_map(|e| match e {
        Effect::WakeAt { now_ms } => Some(*now_ms),
        _ => None,
    });
    let View::Table(t) = app.view() else { panic!() };
    let secs = t
        .countdown_secs
        .expect("a timed decision shows its countdown");
    assert!(secs > 0);
    assert!(!t.auto_play.selected);
    // The player never taps: the face wakes the model when asked, and the hand still ends.
    let mut now = wake.expect("the model asks to be woken at the deadline");
    for _ in 0..500 {
        if matches!(app.view(), View::Result(_)) {
            break;
        }
        let fx = app.update(Event::Tick { now_ms: now });
        now = fx
            .iter()
            .find_map(|e| match e {
                Effect::WakeAt { now_ms } => Some(*now_ms),
                _ => None,
            })
            .unwrap_or(now + 1_000)
            .max(now + 1);
    }
    assert!(
        matches!(app.view(), View::Result(_)),
        "the clock played the hand out"
    );
}

#[test]
fn auto_play_plays_the_hand_out_by_itself() {
    let mut app = App::new(Settings::default(), None, 11, 0);
    tap(&mut app, Tap::PlayBots);
    tap(&mut app, Tap::Start);
    let View::Table(t) = app.view() else { panic!() };
    assert_eq!(t.auto_play.name, "托管");
    assert!(!t.auto_play.selected);
    // 托管: the seat's stand-in and the bots play at once, to the hand's end.
    let fx = tap(&mut app, Tap::AutoPlay);
    assert!(fx.iter().any(|e| matches!(e, Effect::KeepHand { .. })));
    let View::Result(r) = app.view() else {
        panic!("托管 plays the hand out")
    };
    assert_eq!(r.heading, "结算");
}

fn tongcheng_core_clock_match() -> tongcheng_core::table::Clock {
    tongcheng_core::table::Clock::Match
}

#[test]
fn settings_switch_the_language_and_are_kept() {
    let mut app = App::new(Settings::default(), None, 1, 0);
    tap(&mut app, Tap::Settings);
    let View::Settings(s) = app.view() else {
        panic!()
    };
    assert_eq!(s.title, "设置");
    tap(&mut app, Tap::SetLang { lang: Lang::En });
    let fx = tap(&mut app, Tap::Back);
    let kept = fx.iter().find_map(|e| match e {
        Effect::KeepSettings { settings } => Some(settings.clone()),
        _ => None,
    });
    assert_eq!(kept.map(|s| s.lang), Some(Lang::En));
    let View::Home(home) = app.view() else {
        panic!()
    };
    assert_eq!(home.title, "Tongcheng Mahjong");
    named(&home.buttons, "Play vs bots");
}

#[test]
fn a_stale_tap_changes_nothing() {
    let mut app = App::new(Settings::default(), None, 5, 0);
    let before = app.view();
    for t in [
        Tap::Start,
        Tap::NextHand,
        Tap::Hint,
        Tap::Choose { index: 9 },
    ] {
        assert!(tap(&mut app, t).is_empty());
        assert_eq!(app.view(), before);
    }
    // A kept match that does not read is not offered.
    let app = App::new(Settings::default(), Some("{not a saved table"), 5, 0);
    let View::Home(home) = app.view() else {
        panic!()
    };
    assert_eq!(home.buttons[0].name, "单机对战");
}
