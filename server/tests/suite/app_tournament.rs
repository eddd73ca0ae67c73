//! 比赛 through the app model against a real server in process: the model finds the
//! operator's tournament in its list, signs up, asks for its table (reading the round's
//! commitment, then contributing), plays the hand by taps beside three async entrants; 下一桌
//! on the result then waits for round 2's table on the same socket and plays it there; after
//! the last round 下一桌 says the tournament is over; back at the tournament it sees the
//! standings with its own place and checks the finished rounds' walls itself.

use std::time::{Duration, Instant};

use serde_json::json;
use tongcheng_app::{Tap, View};

use crate::app_table::Player;
use crate::tournament::{ADMIN, address, entrant, start};

#[test]
fn a_tournament_is_found_entered_played_and_its_walls_checked_through_the_model() {
    let srv = start();
    let url = srv.url.clone();
    let made: serde_json::Value = reqwest::blocking::Client::new()
        .post(format!("{url}/v1/admin/tournaments"))
        .bearer_auth(ADMIN)
        .json(
            &json!({"name": "桐城杯", "format": {"kind": "swiss", "rounds": 2},
                      "hands_per_match": 1, "entrants": 4}),
        )
        .send()
        .unwrap()
        .json()
        .unwrap();
    let id = made["id"].as_str().unwrap().to_string();

    let mut p = Player::signed_in(&url, 21);
    p.tap(Tap::Tournaments);
    let View::Tournaments(list) = p.app.view() else {
        panic!("the list: {:?}", p.app.view())
    };
    let item = list
        .items
        .iter()
        .find(|b| b.name == "桐城杯")
        .expect("listed");
    assert!(
        item.label.contains("瑞士轮 2 轮") && item.label.contains("0/4 人"),
        "{}",
        item.label
    );
    p.tap(item.tap.clone());
    let View::Tournament(t) = p.app.view() else {
        panic!("the tournament: {:?}", p.app.view())
    };
    let sign_up = t
        .actions
        .iter()
        .find(|b| b.tap == Tap::EnterTournament)
        .expect("报名");
    assert_eq!(sign_up.label, "报名");
    p.tap(Tap::EnterTournament);
    let View::Tournament(t) = p.app.view() else {
        panic!()
    };
    assert!(t.lines[0].contains("1/4 人"), "{:?}", t.lines);
    assert!(
        t.actions
            .iter()
            .any(|b| b.tap == Tap::TournamentTable && b.label == "下一桌")
    );

    // Three more entrants, playing on their own; the tournament starts when they are in.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let others: Vec<_> = (0..3)
        .map(|i| {
            rt.spawn(entrant(
                url.clone(),
                id.clone(),
                address(100 + i, false),
                true,
            ))
        })
        .collect();
    p.tap(Tap::TournamentTable);
    let mut sockets = 0;
    for round in 1..=2 {
        let until = Instant::now() + Duration::from_secs(90);
        while !p.at_result() {
            assert!(
                Instant::now() < until,
                "round {round}'s hand did not end: {:?}",
                p.app.view()
            );
            p.pump();
            if let View::Table(t) = p.app.view() {
                assert!(
                    t.title.starts_with(&format!("比赛第 {round} 轮")),
                    "{}",
                    t.title
                );
            }
            if !p.play() {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        let View::Result(r) = p.app.view() else {
            unreachable!()
        };
        assert_eq!(
            r.fairness.as_deref(),
            Some("本局已核对；牌墙在本轮结束后按赛前承诺验证")
        );
        // The match is over: 下一桌 waits for the next round's table on the same socket.
        assert_eq!(r.next.label, "下一桌");
        if round == 1 {
            sockets = p.sockets_opened();
        }
        p.tap(r.next.tap.clone());
        assert!(
            !matches!(p.app.view(), View::Result(_) | View::Tournament(_)),
            "{:?}",
            p.app.view()
        );
    }
    // After the last round 下一桌 says so; no other socket was opened for round 2.
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        p.pump();
        if let View::Queue(q) = p.app.view()
            && q.status.contains("比赛已结束")
        {
            break;
        }
        assert!(
            Instant::now() < until,
            "no word after the last round: {:?}",
            p.app.view()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        p.sockets_opened(),
        sockets,
        "round 2 was asked and played on the same socket"
    );
    p.tap(Tap::Back);
    assert!(
        matches!(p.app.view(), View::Tournament(_)),
        "{:?}",
        p.app.view()
    );
    for o in others {
        rt.block_on(o).unwrap().unwrap();
    }
    // The round is booked once every table is over: refresh until it shows.
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        p.tap(Tap::RefreshTournament);
        if let View::Tournament(t) = p.app.view()
            && t.lines.iter().any(|l| l.contains("已完成 2 轮"))
        {
            assert_eq!(t.standings.len(), 4, "{:?}", t.standings);
            assert!(t.me.as_deref().is_some_and(|m| m.starts_with("我的名次")));
            assert!(t.lines[0].contains("比赛已结束"), "{:?}", t.lines);
            break;
        }
        assert!(Instant::now() < until, "the round was not booked");
        std::thread::sleep(Duration::from_millis(100));
    }
    p.tap(Tap::VerifyTournament);
    let View::Tournament(t) = p.app.view() else {
        panic!()
    };
    let verified = t.verified.expect("checked");
    assert!(
        verified.starts_with("2 轮、") && verified.contains("全部验证通过"),
        "{verified}"
    );
}
