//! The tournament screens' own checks: the seat request's commitment dance, the views in
//! both languages, and the rounds' walls checked in the model.

use super::*;
use serde_json::json;
use tongcheng_core::bot::Level;
use tongcheng_core::tournament::simulate::simulate;
use tongcheng_core::tournament::{Format, TournamentConfig};

fn body(fx: &Effect) -> (u64, String, serde_json::Value) {
    match fx {
        Effect::Request { id, path, body, .. } => {
            (*id, path.clone(), body.clone().unwrap_or_default())
        }
        other => panic!("not a request: {other:?}"),
    }
}

fn info(round: u32, finished: u32, entered: bool) -> serde_json::Value {
    json!({"id": "t1", "name": "桐城杯", "rules": "guobiao",
           "format": {"kind": "swiss", "rounds": 2}, "duplicate": true, "hands_per_match": 1,
           "entrants": 8, "signed_up": 8, "bots_allowed": false, "rated": false,
           "table_points": [4, 2, 1, 0], "status": if finished == 2 { "finished" } else { "running" },
           "round": round, "rounds": 2, "rounds_finished": finished,
           "commitment": "ab".repeat(32), "entered": entered})
}

#[test]
fn a_seat_is_asked_with_a_contribution_only_under_the_commitment_read() {
    let first = seat_request(1, "t1", 1, None, 9, "tok");
    let (_, path, b) = body(&first);
    assert_eq!(path, "/v1/tournaments/t1/seat");
    assert_eq!(b, json!({"round": 1}));
    let (mut round, mut commitment) = (1, None);
    let commit =
        json!({"state": "commit", "round": 2, "commitment": "cd".repeat(32), "server": ""});
    assert!(matches!(
        seat_step(200, commit, &mut round, &mut commitment),
        SeatStep::Again
    ));
    assert_eq!(
        (round, commitment.as_deref()),
        (2, Some("cd".repeat(32).as_str()))
    );
    let (_, _, b) = body(&seat_request(2, "t1", round, commitment.clone(), 9, "tok"));
    let c = b["contribution"].as_str().unwrap();
    assert!(Bytes32::from_hex(c).is_ok());
    // Another round, another contribution; the same seed and round, the same one.
    let (_, _, b3) = body(&seat_request(3, "t1", 3, commitment.clone(), 9, "tok"));
    assert_ne!(b3["contribution"], b["contribution"]);
    let (_, _, again) = body(&seat_request(4, "t1", 2, commitment.clone(), 9, "tok"));
    assert_eq!(again["contribution"], b["contribution"]);
    // A bye: the next round, its commitment not read yet.
    let bye = json!({"state": "bye", "round": 2, "server": ""});
    assert!(matches!(
        seat_step(200, bye, &mut round, &mut commitment),
        SeatStep::Again
    ));
    assert_eq!((round, commitment), (3, None));
    let seated = json!({"state": "seated", "round": 3, "table": "tab", "server": "http://n"});
    assert!(matches!(
        seat_step(200, seated, &mut round, &mut None),
        SeatStep::Table { table, server } if table == "tab" && server == "http://n"
    ));
    let out = json!({"state": "out", "round": 3, "server": ""});
    assert!(matches!(
        seat_step(200, out, &mut round, &mut None),
        SeatStep::Done(SeatState::Out)
    ));
    let refused = json!({"error": {"code": "not_found", "message": "not signed up"}});
    assert!(matches!(
        seat_step(404, refused, &mut round, &mut None),
        SeatStep::Refused(m) if m == "not signed up"
    ));
}

#[test]
fn the_list_and_a_tournament_are_drawn_in_both_languages_and_the_next_round_is_asked() {
    let mut t = Tournaments::default();
    let mut fx = Vec::new();
    t.open_list("tok", &mut fx);
    let (id, path, _) = body(&fx[0]);
    assert_eq!(path, "/v1/tournaments");
    assert_eq!(t.list_view(Lang::ZhCn).empty.as_deref(), Some("读取中…"));
    t.answered(
        id,
        200,
        json!({"tournaments": [info(1, 0, true)]}),
        "tok",
        &mut fx,
    );
    let list = t.list_view(Lang::ZhCn);
    assert_eq!(list.items[0].name, "桐城杯");
    assert_eq!(
        list.items[0].label,
        "桐城杯 · 国标麻将 · 瑞士轮 2 轮 · 复式 · 8/8 人 · 进行中"
    );
    assert!(list.empty.is_none());
    fx.clear();
    t.show("t1", "tok", &mut fx);
    let paths: Vec<String> = fx.iter().map(|f| body(f).1).collect();
    assert_eq!(
        paths,
        [
            "/v1/tournaments/t1",
            "/v1/tournaments/t1/standings?limit=10"
        ]
    );
    let standings = json!({"rounds": 1, "total": 8, "offset": 0, "rows": [
        {"rank": 1, "entrant": 3, "account": 9, "name": "甲", "table_points": 4.0, "score": 12.5, "matches": 1},
        {"rank": 2, "entrant": 1, "account": 7, "name": "玩家7", "table_points": 1.5, "score": -3.0, "matches": 1}],
        "me": {"rank": 2, "entrant": 1, "account": 7, "name": "玩家7", "table_points": 1.5, "score": -3.0, "matches": 1}});
    let (standings_id, _, _) = body(&fx[1]);
    t.answered(standings_id, 200, standings, "tok", &mut Vec::new());
    let v = t.view(Lang::ZhCn).unwrap();
    assert_eq!(v.lines[1], "第 1 / 2 轮，已完成 0 轮");
    assert_eq!(v.standings[0], "1. 甲 · 4 名次分 · 12.5 分");
    assert_eq!(
        v.me.as_deref(),
        Some("我的名次：2. 玩家7 · 1.5 名次分 · -3 分")
    );
    let labels: Vec<&str> = v.actions.iter().map(|b| b.label.as_str()).collect();
    assert_eq!(labels, ["下一桌", "验证牌墙", "刷新"]);
    assert!(
        !v.actions[1].enabled,
        "nothing to check before a round ends"
    );
    let en = t.view(Lang::En).unwrap();
    assert_eq!(en.lines[1], "Round 1 of 2, 0 finished");
    // The round in play, until a table of it was sat at: then the next.
    assert_eq!(t.next_round(), Some(("t1".into(), 1)));
    t.played("t1", 1);
    assert_eq!(t.next_round(), Some(("t1".into(), 2)));
}

#[test]
fn the_rounds_published_are_checked_here_and_a_forged_one_is_caught() {
    let config = TournamentConfig {
        rules: "guobiao".into(),
        format: Format::Swiss { rounds: 2 },
        duplicate: true,
        hands_per_match: 1,
        table_points: [4, 2, 1, 0],
        bots_allowed: false,
    };
    let entrants: Vec<u64> = (1..=8).collect();
    let sim = simulate(&config, &entrants, Level::Easy, 5, |_, _| false).unwrap();
    let published = |r: &RoundRecord| json!({"record": serde_json::to_value(r).unwrap()});
    let mut t = Tournaments::default();
    let mut fx = Vec::new();
    t.open_list("tok", &mut fx);
    let (id, _, _) = body(&fx[0]);
    t.answered(
        id,
        200,
        json!({"tournaments": [info(2, 2, true)]}),
        "tok",
        &mut fx,
    );
    t.show("t1", "tok", &mut Vec::new());
    let mut fx = Vec::new();
    t.verify("tok", &mut fx);
    for (i, round) in sim.rounds.iter().enumerate() {
        let (id, path, _) = body(&fx[0]);
        assert_eq!(path, format!("/v1/tournaments/t1/rounds/{}", i + 1));
        fx.clear();
        t.answered(id, 200, published(round), "tok", &mut fx);
    }
    let v = t.view(Lang::ZhCn).unwrap();
    assert_eq!(
        v.verified.as_deref(),
        Some("2 轮、4 局的牌墙全部验证通过：都来自赛前承诺的种子")
    );
    // A round whose secret is not the one committed to.
    let mut forged = sim.rounds[0].clone();
    forged.secret = Seed::from_u64(1);
    let mut fx = Vec::new();
    t.verify("tok", &mut fx);
    let (id, _, _) = body(&fx[0]);
    t.answered(id, 200, published(&forged), "tok", &mut Vec::new());
    let v = t.view(Lang::ZhCn).unwrap();
    assert!(
        v.verified
            .as_deref()
            .unwrap()
            .starts_with("第 1 轮未通过验证")
    );
}
