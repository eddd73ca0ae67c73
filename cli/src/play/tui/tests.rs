use super::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tongcheng_core::bot::Level;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::table::Clock;

fn app(name: &str, face: TileFace) -> App {
    let dir = std::env::temp_dir().join(format!("tongcheng-tui-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.join("h.db");
    let setup = Setup {
        rules: RuleSet::guobiao(),
        seed: 3,
        seed_from_clock: false,
        level: Level::Normal,
        unfinished: crate::play::store::unfinished_path(&db),
        resume: false,
        face,
        resume_command: "tongcheng play --resume".into(),
        clock: Clock::Match,
    };
    App::new(setup, Store::open(&db).unwrap())
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    let buf = term.backend().buffer().clone();
    let mut s = String::new();
    for y in 0..h {
        for x in 0..w {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

fn until_decision(app: &mut App) {
    for _ in 0..2000 {
        app.next_bot = Instant::now();
        app.tick();
        if let Some(p) = &mut app.pending {
            // As if the person had read the table for a moment.
            p.opened -= KEY_GRACE;
            return;
        }
        if !matches!(app.screen, Screen::Play) {
            return;
        }
    }
    panic!("no decision came");
}

#[test]
fn the_table_fits_80_by_24_and_keys_play() {
    for face in [TileFace::Glyph, TileFace::Notation] {
        let mut a = app(&format!("{face:?}"), face);
        until_decision(&mut a);
        let s = screen(&a, 80, 24);
        assert!(s.contains("Your turn"), "{s}");
        assert!(s.contains("Hand 1/16"), "{s}");
        for name in ["You", "Bot 1", "Bot 2", "Bot 3"] {
            assert!(s.contains(name), "{s}");
        }
        // Several discards by keys, through the bots' moves, into later decisions.
        for _ in 0..6 {
            if !matches!(a.screen, Screen::Play) {
                break;
            }
            let kind = a.pending.as_ref().map(|p| p.decision.kind);
            let key = match kind {
                Some(DecisionKind::Turn) => KeyCode::Enter,
                _ => KeyCode::Char(' '),
            };
            a.key(KeyEvent::from(KeyCode::Left));
            a.key(KeyEvent::from(key));
            assert!(a.pending.is_none(), "the key played a move");
            until_decision(&mut a);
            screen(&a, 80, 24);
        }
        a.key(KeyEvent::from(KeyCode::Char('h')));
        assert!(matches!(a.overlay, Some(Overlay::Hint { .. }) | None));
        let s = screen(&a, 80, 24);
        assert!(
            s.contains("Hint") || !matches!(a.screen, Screen::Play),
            "{s}"
        );
        // A bigger terminal works as well.
        screen(&a, 120, 40);
    }
}

#[test]
fn quitting_asks_first_and_saves_the_match() {
    let mut a = app("quit", TileFace::Notation);
    until_decision(&mut a);
    a.key(KeyEvent::from(KeyCode::Enter));
    until_decision(&mut a);
    a.key(KeyEvent::from(KeyCode::Char('q')));
    assert!(matches!(a.overlay, Some(Overlay::ConfirmQuit)));
    assert!(screen(&a, 80, 24).contains("Quit?"));
    a.key(KeyEvent::from(KeyCode::Char('n')));
    assert!(a.overlay.is_none() && !a.done);
    a.key(KeyEvent::from(KeyCode::Char('q')));
    a.key(KeyEvent::from(KeyCode::Char('y')));
    assert!(a.done);
    let u = load_unfinished(&a.setup.unfinished)
        .unwrap()
        .expect("saved");
    assert_eq!(u.seed(), 3);
    // The next start asks instead of resuming silently.
    let b = App::new(
        Setup {
            rules: RuleSet::guobiao(),
            seed: 9,
            seed_from_clock: false,
            level: Level::Easy,
            unfinished: a.setup.unfinished.clone(),
            resume: false,
            face: TileFace::Notation,
            resume_command: "tongcheng play --resume".into(),
            clock: Clock::Match,
        },
        Store::open(a.store.path()).unwrap(),
    );
    assert!(matches!(b.screen, Screen::AskResume(_)));
    assert!(screen(&b, 80, 24).contains("[r] resume it"));
    let mut b = b;
    b.key(KeyEvent::from(KeyCode::Char('r')));
    assert!(matches!(b.screen, Screen::Play));
    assert_eq!(b.table.seed(), 3);
    assert_eq!(b.table.view(), a.table.view());
    assert!(
        a.setup.unfinished.exists(),
        "the save stays until the resumed match ends (it is rewritten after every hand)"
    );
    // Quitting the resumed match rewrites its own save rather than refusing to.
    b.key(KeyEvent::from(KeyCode::Char('q')));
    b.key(KeyEvent::from(KeyCode::Char('y')));
    assert!(
        b.farewell.iter().any(|l| l.starts_with("Match saved in")),
        "{:?}",
        b.farewell
    );
}

#[test]
fn a_hand_result_screen_fits() {
    let mut a = app("result", TileFace::Glyph);
    for _ in 0..400 {
        until_decision(&mut a);
        if let Screen::HandOver { .. } = a.screen {
            let s = screen(&a, 80, 24);
            assert!(s.contains("Score changes"), "{s}");
            assert!(s.contains("Standings: "), "{s}");
            return;
        }
        let d = a.pending.as_ref().unwrap().decision.on_timeout;
        a.act(d);
    }
    panic!("the hand never ended");
}

#[test]
fn a_whole_match_ends_on_the_final_standings() {
    let mut a = app("whole", TileFace::Notation);
    for _ in 0..5000 {
        until_decision(&mut a);
        match a.screen {
            Screen::HandOver { .. } => a.key(KeyEvent::from(KeyCode::Enter)),
            Screen::MatchOver => break,
            _ => {
                let d = a.pending.as_ref().unwrap().decision.on_timeout;
                a.act(d);
            }
        }
    }
    assert!(matches!(a.screen, Screen::MatchOver));
    let s = screen(&a, 80, 24);
    assert!(s.contains("final standings after 16 hands"), "{s}");
    assert_eq!(a.store.db_hands(), 16);
    a.key(KeyEvent::from(KeyCode::Enter));
    assert!(a.done);
    assert!(a.farewell.iter().any(|l| l.contains("final standings")));
    assert!(
        !a.setup.unfinished.exists(),
        "a finished match leaves nothing to resume"
    );
}

#[test]
fn small_and_odd_terminal_sizes_do_not_panic() {
    let mut a = app("small", TileFace::Glyph);
    until_decision(&mut a);
    for (w, h) in [(1, 1), (10, 3), (40, 12), (79, 23), (200, 60)] {
        screen(&a, w, h);
        a.key(KeyEvent::from(KeyCode::Char('h')));
        screen(&a, w, h);
        a.key(KeyEvent::from(KeyCode::Esc));
        a.key(KeyEvent::from(KeyCode::Char('q')));
        screen(&a, w, h);
        a.key(KeyEvent::from(KeyCode::Char('n')));
    }
}

#[test]
fn a_late_key_never_acts_on_the_next_decision() {
    let mut a = app("late-key", TileFace::Notation);
    until_decision(&mut a);
    // The decision has just come up: an Enter typed for the previous one is ignored.
    a.pending.as_mut().unwrap().opened = Instant::now();
    let before = a.table.game().actions().len();
    a.key(KeyEvent::from(KeyCode::Enter));
    assert_eq!(
        a.table.game().actions().len(),
        before,
        "the late key played"
    );
    assert!(a.pending.is_some());
    assert!(
        a.message
            .as_ref()
            .is_some_and(|(m, _)| m.contains("ignored"))
    );
    // Read for a moment, the same key plays.
    a.pending.as_mut().unwrap().opened -= KEY_GRACE;
    a.key(KeyEvent::from(KeyCode::Enter));
    assert!(a.table.game().actions().len() > before);
}

/// Sets the table clock's time and ticks.
fn tick_at(a: &mut App, now_ms: u64) {
    a.test_now_ms = Some(now_ms);
    a.tick();
}

#[test]
fn the_clock_stands_still_under_an_overlay() {
    let mut a = app("overlay-clock", TileFace::Notation);
    a.test_now_ms = Some(1_000);
    until_decision(&mut a);
    // On the screen, the decision's clock runs from here.
    tick_at(&mut a, 1_000);
    let left = a.table.remaining_ms(1_000).expect("timed");
    a.key(KeyEvent::from(KeyCode::Char('h')));
    assert!(a.overlay.is_some(), "the hint is open");
    // The time limit passes while the hint is read: nothing is auto-played.
    let before = a.table.game().actions().len();
    let later = 1_000 + 40_000; // more than any time limit
    tick_at(&mut a, later);
    assert_eq!(
        a.table.game().actions().len(),
        before,
        "timed out under the hint"
    );
    assert!(a.pending.is_some());
    assert_eq!(a.table.remaining_ms(later), Some(left));
    // Closed, the clock runs again from where it stood, and runs out from there.
    a.overlay = None;
    tick_at(&mut a, later);
    assert_eq!(a.table.game().actions().len(), before);
    assert_eq!(a.table.remaining_ms(later + 1), Some(left - 1));
    tick_at(&mut a, later + left);
    assert!(a.table.game().actions().len() > before, "the time ran out");
    assert!(a.pending.is_none());
    assert!(
        a.message
            .as_ref()
            .is_some_and(|(m, _)| m.contains("Time is up"))
    );
}

#[test]
fn under_hangzhou_rules_the_wild_is_named_and_marked() {
    let mut a = app("hangzhou-wild", TileFace::Notation);
    a.setup.rules = RuleSet::hangzhou();
    a.table = Table::new(a.setup.rules.clone(), a.setup.seed, a.setup.level);
    until_decision(&mut a);
    let v = a.table.view();
    let wild = v.wild.expect("Hangzhou has a wild");
    let s = screen(&a, 120, 30);
    assert!(s.contains(&format!("wild {wild}")), "{s}");
    if v.hand.contains(&wild) || v.drawn == Some(wild) {
        assert!(s.contains("wld"), "{s}");
    }
}

#[test]
fn a_small_terminal_says_the_size_needed_and_stops_the_clock() {
    let mut a = app("small", TileFace::Notation);
    a.test_now_ms = Some(0);
    until_decision(&mut a);
    let s = screen(&a, 40, 12);
    assert!(s.contains("80x22") && s.contains("40x12"), "{s}");
    a.too_small = true;
    let before = a.table.game().actions().len();
    tick_at(&mut a, 40_000);
    a.key(KeyEvent::from(KeyCode::Enter));
    assert_eq!(
        a.table.game().actions().len(),
        before,
        "nothing acts unseen"
    );
    a.too_small = false;
    assert!(screen(&a, 80, 24).contains("Your turn") || a.pending.is_some());
}

#[test]
fn with_ascii_every_screen_is_ascii() {
    let mut a = app("ascii", TileFace::Notation);
    for _ in 0..6 {
        until_decision(&mut a);
        let s = screen(&a, 80, 24);
        assert!(s.is_ascii(), "{s}");
        a.key(KeyEvent::from(KeyCode::Char('h')));
        let s = screen(&a, 80, 24);
        assert!(s.is_ascii(), "{s}");
        a.overlay = None;
        if let Some(p) = &a.pending {
            let act = p.decision.on_timeout;
            a.act(act);
        }
    }
}

#[test]
fn the_clock_setting_is_the_core_tables() {
    // Relaxed: at least 30 s a turn and 10 s a claim, counted down from the table's clock.
    let mut a = app("clock-relaxed", TileFace::Notation);
    a.table.set_clock(Clock::Relaxed);
    a.test_now_ms = Some(0);
    until_decision(&mut a);
    tick_at(&mut a, 0);
    let left = a.table.remaining_ms(0).expect("timed");
    assert!(left >= 10_000, "{left}");
    let s = screen(&a, 80, 24);
    assert!(s.contains(&format!("{:>2}s", left / 1000)), "{s}");
    // With the clock off, a decision never times out.
    let mut a = app("clock-off", TileFace::Notation);
    a.table.set_clock(Clock::Off);
    a.test_now_ms = Some(0);
    until_decision(&mut a);
    assert_eq!(a.table.remaining_ms(0), None);
    let before = a.table.game().actions().len();
    tick_at(&mut a, 0);
    tick_at(&mut a, 3_600_000);
    assert_eq!(a.table.game().actions().len(), before);
    let s = screen(&a, 80, 24);
    assert!(s.contains("no clock"), "{s}");
}

#[test]
fn two_timeouts_put_the_seat_on_auto_play_and_a_key_takes_it_back() {
    let mut a = app("auto-play", TileFace::Notation);
    let mut now = 0;
    a.test_now_ms = Some(now);
    for _ in 0..2 {
        until_decision(&mut a);
        assert!(matches!(a.screen, Screen::Play), "the hand went on");
        tick_at(&mut a, now);
        now += 60_000;
        tick_at(&mut a, now);
        assert!(a.pending.is_none(), "timed out");
    }
    assert!(a.table.auto_play());
    assert!(a.message.as_ref().is_some_and(|(m, _)| m.contains("托管")));
    // The seat plays itself: the hand goes on without the person.
    let before = a.table.game().actions().len();
    for _ in 0..50 {
        a.next_bot = Instant::now();
        a.tick();
        assert!(a.pending.is_none(), "no decision is shown on auto-play");
    }
    assert!(a.table.game().actions().len() > before || !matches!(a.screen, Screen::Play));
    if matches!(a.screen, Screen::Play) {
        assert!(screen(&a, 80, 24).contains("press any key to take it back"));
        // Any key takes the seat back.
        a.key(KeyEvent::from(KeyCode::Char(' ')));
        assert!(!a.table.auto_play());
    }
}
