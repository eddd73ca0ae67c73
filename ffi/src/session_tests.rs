//! The phone session's clock is the core table's: the shell passes its time in and draws what
//! the model says.

use super::*;

fn config(seed: u64, clock: &str) -> SessionConfig {
    SessionConfig {
        rules: "guobiao".into(),
        level: "normal".into(),
        seed,
        full_match: false,
        player: 0,
        clock: clock.into(),
    }
}

fn session(seed: u64, clock: &str) -> Arc<GameSession> {
    GameSession::new(config(seed, clock)).unwrap()
}

fn discards(t: &TableModel) -> usize {
    t.seats.iter().map(|s| s.discards.len()).sum()
}

#[test]
fn the_model_carries_the_tables_countdown_and_the_table_times_out() {
    let s = session(23, "match");
    // The person (player 0) deals: the first discard has 30 s under guobiao.
    let t = s.advance(1_000).unwrap();
    assert!(t.pending.is_some());
    assert_eq!(
        (t.deadline_ms, t.remaining_ms),
        (Some(31_000), Some(30_000))
    );
    assert!(!t.auto_play);
    assert_eq!(s.advance(11_000).unwrap().remaining_ms, Some(20_000));
    // Nothing is sent by the shell: the time passing in plays the timeout action.
    let t = s.advance(31_000).unwrap();
    assert!(discards(&t) > 0, "the timeout discarded");
    assert!(!t.auto_play);
    // Missed again: 托管, and the stand-in plays the seat at once.
    let mut now = 31_000;
    let mut t = t;
    while !t.auto_play && !t.finished {
        now += 60_000;
        t = s.advance(now).unwrap();
    }
    assert!(t.auto_play, "two timeouts in a row");
    assert!(t.pending.is_none() || t.finished);
    assert_eq!(t.remaining_ms, None);
    // Taken back: the person's decisions are timed again.
    assert!(s.set_auto_play(false));
    assert!(!s.table().auto_play);
    assert!(!s.set_auto_play(false), "no change");
}

#[test]
fn an_answer_in_time_keeps_the_seat_and_the_clock_can_be_off() {
    let s = session(5, "relaxed");
    let t = s.advance(0).unwrap();
    let d = t.pending.expect("the dealer's first discard");
    assert_eq!(t.remaining_ms, Some(30_000));
    s.act(d.on_timeout, 29_000).unwrap();
    let t = s.advance(29_000).unwrap();
    assert!(!t.auto_play);
    if t.pending.is_some() {
        assert!(
            t.remaining_ms.is_some_and(|ms| ms >= 10_000),
            "relaxed: at least 10 s"
        );
    }
    let off = session(5, "off");
    let t = off.advance(0).unwrap();
    assert_eq!((t.deadline_ms, t.remaining_ms), (None, None));
    assert_eq!(off.advance(u64::MAX / 2).unwrap().pending, t.pending);
    let e = GameSession::new(config(1, "slow")).unwrap_err();
    assert!(e.to_string().contains("off, relaxed, match"), "{e}");
}

#[test]
fn events_are_described_in_both_languages() {
    use crate::model::EventModel;
    use tongcheng_core::game::Event;
    use tongcheng_core::seat::Seat;
    let won = Event::Won {
        seat: Seat(1),
        from: None,
        tile: "5m".parse().unwrap(),
        total: 8,
    };
    let m = EventModel::seen(&won, Some(Seat(1)), &|s: Seat| format!("S{}", s.0));
    assert_eq!(m.text, "S1 wins on 5m, self-drawn — 8 points");
    assert_eq!(m.text_zh, "你 自摸 5m — 8 分");
    assert_eq!(EventModel::of(&Event::DrawGame).text_zh, "牌摸完了：荒牌");
}
