//! User journeys through the app model, in milliseconds and without any face: what a player
//! does, tap by tap, and what each screen then shows.

use tongcheng_app::view::{Button, TableView};
use tongcheng_app::{App, Effect, Event, Lang, Settings, Shelf, Tap, View};

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
    assert_eq!(
        new.pickers.len(),
        4,
        "rules, level, clock and 飘 for Tongcheng rules"
    );
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
        assert!(
            tongcheng_core::hint::reads_as_chinese(&hint.reason),
            "the hint's reason in Chinese: {}",
            hint.reason
        );
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
        // The hint speaks the player's language.
        if t.hint_button.enabled {
            tap(&mut app, Tap::Hint);
            let View::Table(t) = app.view() else { panic!() };
            let reason = t.hint.expect("a hint when asked").reason;
            let chinese = tongcheng_core::hint::reads_as_chinese(&reason);
            assert_eq!(chinese, lang == Lang::ZhCn, "{preset}: {reason}");
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
    // 托管: the seat's stand-in and the bots play the hand out, a move seen at a time: the
    // model asks to be woken for each, and never does two moves in one event.
    let mut fx = tap(&mut app, Tap::AutoPlay);
    let mut events = 0;
    let mut last = 0;
    while let Some(at) = wake(&fx) {
        assert!(at > last, "the model asks for a later time each time");
        last = at;
        let before = moves_seen(&app);
        fx = app.update(Event::Tick { now_ms: at });
        events += 1;
        if matches!(app.view(), View::Table(_)) {
            assert!(moves_seen(&app) <= before + 1, "one move per wake-up");
        }
        assert!(events < 1_000, "the hand did not end");
    }
    assert!(events > 20, "the hand was paced ({events} wake-ups)");
    let View::Result(r) = app.view() else {
        panic!("托管 plays the hand out")
    };
    assert_eq!(r.heading, "结算");
}

/// The time the model asked to be woken at, if it did.
fn wake(fx: &[Effect]) -> Option<u64> {
    fx.iter().find_map(|e| match e {
        Effect::WakeAt { now_ms } => Some(*now_ms),
        _ => None,
    })
}

/// Discards on the table (every seat's, taken ones too): the moves a player has seen.
fn moves_seen(app: &App) -> usize {
    match app.view() {
        View::Table(t) => t
            .seats
            .iter()
            .map(|s| s.discards.len() + s.melds.len())
            .sum(),
        _ => usize::MAX,
    }
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

/// A face with no database: it keeps finished hands on a [`Shelf`] and answers the model's
/// history effects from it, as the browser does.
struct ShelfFace {
    app: App,
    shelf: Shelf,
    clock_secs: i64,
}

impl ShelfFace {
    fn send(&mut self, event: Event) -> Vec<Effect> {
        let mut queue = vec![event];
        let mut seen = Vec::new();
        while let Some(e) = queue.pop() {
            for fx in self.app.update(e) {
                if let Effect::KeepHand { record, seat } = &fx {
                    self.clock_secs += 600;
                    self.shelf.keep((**record).clone(), *seat, self.clock_secs);
                }
                queue.extend(self.shelf.answer(&fx));
                seen.push(fx);
            }
        }
        seen
    }

    fn tap(&mut self, t: Tap) -> Vec<Effect> {
        self.send(Event::Tap { tap: t })
    }

    /// 托管, then the face's timer wakes the model until the hand is over.
    fn auto_play_to_result(&mut self) {
        let mut fx = self.tap(Tap::AutoPlay);
        let mut last = 0;
        while let Some(at) = wake(&fx) {
            assert!(at > last, "the model asks for a later time each time");
            last = at;
            fx = self.send(Event::Tick { now_ms: at });
        }
        assert!(
            matches!(self.app.view(), View::Result(_)),
            "托管 plays the hand out"
        );
    }
}

#[test]
fn finished_hands_are_listed_counted_and_replayed_move_by_move() {
    let mut face = ShelfFace {
        app: App::new(Settings::default(), None, 23, 0),
        shelf: Shelf::default(),
        clock_secs: 1_796_505_180,
    };
    // Nothing yet: 我的牌局 says so.
    face.tap(Tap::MyHands);
    let View::MyHands(empty) = face.app.view() else {
        panic!("我的牌局 opens its screen")
    };
    assert_eq!(
        empty.notice.as_deref(),
        Some("还没有牌局：打完一局就会出现在这里")
    );
    assert!(empty.hands.is_empty());
    face.tap(Tap::Back);
    // Two hands of 托管, the second under other rules.
    for preset in ["tongcheng-dianpao", "guobiao"] {
        face.tap(Tap::PlayBots);
        face.tap(Tap::PickRules {
            preset: preset.into(),
        });
        face.tap(Tap::Start);
        face.auto_play_to_result();
        let View::Result(r) = face.app.view() else {
            panic!("托管 plays the hand out")
        };
        // 大厅 from the result: the match is kept for later.
        let fx = face.tap(r.home.expect("大厅 on the result").tap);
        assert!(
            fx.iter()
                .any(|e| matches!(e, Effect::KeepMatch { saved: Some(_) }))
        );
        assert!(matches!(face.app.view(), View::Home(_)));
    }
    assert_eq!(face.shelf.len(), 2);
    // The kept match taken up again shows its result; its hand is not kept a second time.
    let View::Home(home) = face.app.view() else {
        panic!()
    };
    face.tap(named(&home.buttons, "继续牌局").tap.clone());
    assert!(matches!(face.app.view(), View::Result(_)));
    assert_eq!(face.shelf.len(), 2);
    face.tap(Tap::Back);

    face.tap(Tap::MyHands);
    let View::MyHands(list) = face.app.view() else {
        panic!()
    };
    assert_eq!(list.hands.len(), 2);
    assert!(list.notice.is_none());
    assert!(list.hands[0].title.starts_with("国标麻将"), "newest first");
    assert_eq!(list.page_label, "1–2 / 2");
    assert!(!list.previous.enabled && !list.next.enabled);
    let figure = |v: &tongcheng_app::view::MyHandsView, label: &str| {
        v.stats
            .iter()
            .find(|f| f.label == label)
            .unwrap_or_else(|| panic!("no {label}"))
            .value
            .clone()
    };
    assert_eq!(figure(&list, "局数"), "2");
    // The statistics of one rule set.
    let names: Vec<&str> = list
        .stats_rules
        .options
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names.len(), 3, "全部玩法 and the two played: {names:?}");
    assert_eq!(names[0], "全部玩法");
    face.tap(Tap::PickStatsRules {
        rules: Some("guobiao".into()),
    });
    let View::MyHands(guobiao) = face.app.view() else {
        panic!()
    };
    assert_eq!(figure(&guobiao, "局数"), "1");
    assert!(
        guobiao
            .stats_rules
            .options
            .iter()
            .any(|b| b.selected && b.name == "国标麻将")
    );

    // The oldest hand's replay, from the first move to the result.
    let open = list.hands[1].open.clone();
    assert!(open.name.starts_with("回放 桐城麻将·点炮"), "{}", open.name);
    face.tap(open.tap);
    let View::Replay(r) = face.app.view() else {
        panic!("回放 opens the replay")
    };
    assert!(r.step_label.starts_with("第 0 / "));
    assert!(r.result.is_none());
    assert_eq!(r.verified, "牌谱已验证：重放得到同样的结果");
    assert_eq!(r.seats.len(), 4);
    let tiles = r.hand.len() + usize::from(r.drawn.is_some());
    assert!(tiles == 13 || tiles == 14);
    assert!(!r.controls[0].enabled && !r.controls[1].enabled);
    face.tap(r.controls[2].tap.clone());
    let View::Replay(one) = face.app.view() else {
        panic!()
    };
    assert!(one.step_label.starts_with("第 1 / "));
    assert!(!one.last_move.is_empty(), "the move in words");
    face.tap(one.controls[3].tap.clone());
    let View::Replay(end) = face.app.view() else {
        panic!()
    };
    let result = end.result.expect("the result at the last move");
    assert_eq!(result.heading, "结算");
    assert_eq!(result.payments.iter().map(|p| p.delta).sum::<i32>(), 0);
    assert!(!end.controls[2].enabled, "no move after the last");
    // Back a move and to the start again: the table is rebuilt.
    face.tap(end.controls[1].tap.clone());
    let View::Replay(back) = face.app.view() else {
        panic!()
    };
    assert!(back.result.is_none());
    face.tap(Tap::Back);
    assert!(matches!(face.app.view(), View::MyHands(_)));
    face.tap(Tap::Back);
    assert!(matches!(face.app.view(), View::Home(_)));
}

#[test]
fn a_damaged_history_shows_what_reads_and_says_what_does_not() {
    let mut face = ShelfFace {
        app: App::new(Settings::default(), None, 31, 0),
        shelf: Shelf::default(),
        clock_secs: 0,
    };
    face.tap(Tap::PlayBots);
    face.tap(Tap::Start);
    face.auto_play_to_result();
    // The kept text with a damaged entry beside the good one.
    let good: serde_json::Value = serde_json::from_str(&face.shelf.to_json()).unwrap();
    let mut damaged = good.clone();
    let hands = damaged["hands"].as_array_mut().unwrap();
    hands.push(serde_json::json!({"id": 9, "record": 1}));
    let shelf = Shelf::from_json(&damaged.to_string());
    assert_eq!((shelf.len(), shelf.unreadable()), (1, 1));
    // Text kept before 同步 (a bare list) and before hands had ids (played_at in
    // milliseconds) still reads, numbered.
    let mut legacy = good["hands"].clone();
    legacy[0].as_object_mut().unwrap().remove("id");
    legacy[0]["played_at"] = serde_json::json!(1_796_505_180_000_i64);
    let old = Shelf::from_json(&legacy.to_string());
    assert_eq!((old.len(), old.unreadable()), (1, 0));
    let kept: serde_json::Value = serde_json::from_str(&old.to_json()).unwrap();
    assert_eq!(kept["hands"][0]["id"], 1);
    assert_eq!(kept["hands"][0]["played_at"], 1_796_505_180_i64);
    assert_eq!(Shelf::from_json("not json").unreadable(), 1);
    assert_eq!(Shelf::from_json("").unreadable(), 0);
    let mut face = ShelfFace {
        app: App::new(Settings::default(), None, 31, 0),
        shelf,
        clock_secs: 0,
    };
    face.tap(Tap::MyHands);
    let View::MyHands(list) = face.app.view() else {
        panic!()
    };
    assert_eq!(list.hands.len(), 1);
    // A hand that is gone: said, and the list stays.
    face.tap(Tap::OpenHand { id: 77 });
    let View::MyHands(after) = face.app.view() else {
        panic!("a missing hand leaves the list up")
    };
    assert_eq!(after.notice.as_deref(), Some("这一局读不出来"));
    // A kept record whose setup cannot make a game (a dealer level its rules do not have):
    // said, never played.
    let mut forged: serde_json::Value = serde_json::from_str(&face.shelf.to_json()).unwrap();
    forged["hands"][0]["record"]["setup"]["dealer_level"] = serde_json::json!(200);
    let mut face = ShelfFace {
        app: App::new(Settings::default(), None, 31, 0),
        shelf: Shelf::from_json(&forged.to_string()),
        clock_secs: 0,
    };
    face.tap(Tap::MyHands);
    let View::MyHands(list) = face.app.view() else {
        panic!()
    };
    face.tap(list.hands[0].open.tap.clone());
    let View::MyHands(after) = face.app.view() else {
        panic!("a forged hand is not replayed")
    };
    assert_eq!(after.notice.as_deref(), Some("这一局读不出来"));
    // A page past the end is refused; the list stays.
    assert!(face.tap(Tap::Page { offset: 500 }).is_empty());
}

#[test]
fn piao_is_asked_before_every_hand_where_the_rules_have_it() {
    let mut app = App::new(Settings::default(), None, 41, 0);
    tap(&mut app, Tap::PlayBots);
    tap(
        &mut app,
        Tap::PickRules {
            preset: "guobiao".into(),
        },
    );
    let View::NewMatch(guobiao) = app.view() else {
        panic!()
    };
    assert!(
        guobiao.pickers.iter().all(|p| p.label != "飘"),
        "Chinese Official has no 飘"
    );
    tap(
        &mut app,
        Tap::PickRules {
            preset: "tongcheng-dianpao".into(),
        },
    );
    let View::NewMatch(tongcheng) = app.view() else {
        panic!()
    };
    let piao = tongcheng
        .pickers
        .iter()
        .find(|p| p.label == "飘")
        .expect("Tongcheng rules offer 飘");
    assert_eq!(names(&piao.options), ["不飘", "每局选飘"]);
    tap(&mut app, named(&piao.options, "每局选飘").tap.clone());
    let fx = tap(&mut app, Tap::Start);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::KeepSettings { settings } if settings.piao))
    );
    for hand in 1..=2 {
        let View::Table(t) = app.view() else { panic!() };
        assert_eq!(t.status, "本局飘几分？（飘分翻倍计入输赢）", "hand {hand}");
        assert_eq!(t.piao_choices.len(), 11);
        assert!(
            t.hand.iter().chain(&t.drawn).all(|h| !h.enabled),
            "no discard before the 飘"
        );
        assert!(t.seats.iter().all(|s| s.piao.is_none()));
        // Nothing moves while he thinks, however late it gets.
        app.update(Event::Tick { now_ms: 3_600_000 });
        assert!(matches!(app.view(), View::Table(t) if !t.piao_choices.is_empty()));
        tap(&mut app, named(&t.piao_choices, "2").tap.clone());
        let View::Table(after) = app.view() else {
            panic!()
        };
        assert!(after.piao_choices.is_empty());
        assert_eq!(
            after.seats[0].piao.as_deref(),
            Some("飘2"),
            "his stake is shown"
        );
        assert!(
            after.seats.iter().all(|s| s.piao.is_some()),
            "the bots' too"
        );
        let mut now = 3_600_000;
        let fx = play_hand(&mut app, &mut now);
        let record = fx
            .iter()
            .find_map(|e| match e {
                Effect::KeepHand { record, seat } => Some((record.clone(), *seat)),
                _ => None,
            })
            .expect("the hand is kept");
        let tongcheng_core::rules::Piao::Chosen(stakes) = record.0.setup.rules.piao else {
            panic!("the record carries the 飘")
        };
        assert_eq!(stakes[usize::from(record.1)], 2);
        assert_eq!(record.0.setup.rules.name, "tongcheng-dianpao-piao");
        tongcheng_core::record::replay(&record.0).expect("a 飘 hand replays and verifies");
        tap(&mut app, Tap::NextHand);
    }
}

/// 提示 after the page was idle shows the hint worked out ahead, the same as one worked out on
/// the tap; the idle event changes nothing on screen.
#[test]
fn a_hint_worked_out_while_idle_is_the_one_the_tap_would_make() {
    let (mut ahead, mut on_tap) = (
        App::new(Settings::default(), None, 41, 0),
        App::new(Settings::default(), None, 41, 0),
    );
    let mut now = 0;
    for app in [&mut ahead, &mut on_tap] {
        tap(app, Tap::PlayBots);
        tap(app, Tap::Start);
    }
    // Both wait for the player's decision (the same seed: the same table).
    let decided = |app: &App| matches!(app.view(), View::Table(t) if t.hint_button.enabled);
    while !decided(&ahead) {
        now += 1_000;
        for app in [&mut ahead, &mut on_tap] {
            app.update(Event::Tick { now_ms: now });
        }
        assert!(now < 600_000, "no decision came");
    }
    let before = ahead.view();
    let fx = ahead.update(Event::Idle);
    assert!(
        fx.iter().all(|e| matches!(e, Effect::WakeAt { .. })),
        "only the clock it had: {fx:?}"
    );
    assert_eq!(ahead.view(), before, "nothing on screen changes");
    for app in [&mut ahead, &mut on_tap] {
        tap(app, Tap::Hint);
    }
    let hint = |app: &App| match app.view() {
        View::Table(t) => t.hint.clone(),
        other => panic!("{other:?}"),
    };
    assert!(hint(&ahead).is_some());
    assert_eq!(hint(&ahead), hint(&on_tap));
}
