//! 下一桌 on the table's own connection: when a tournament match ends the socket stays
//! open and asks for the next round's table on it; the server answers when the round is
//! seated (the stream contributes to the round's walls on the way). 下一桌 on the result
//! then sits the player at that table — on the same socket when its node is this one — or
//! waits for the answer; a bye asks for the round after. A socket lost meanwhile falls
//! back to the HTTP seat request.

use tongcheng_api::tournament::SeatState;
use tongcheng_core::protocol::stream::SeatStream;
use tongcheng_core::protocol::{NextTable, NextTableState};

use super::{OnlineTable, Phase, Seek, send};
use crate::model::Effect;
use crate::tournaments;

impl OnlineTable {
    /// The match at a tournament table ended: the next round's table is asked for on the
    /// same socket.
    pub(super) fn ask_after_match(&mut self, fx: &mut Vec<Effect>) {
        let round = self.stream.as_ref().and_then(SeatStream::round);
        if let Some(r) = round.map(|r| r.round) {
            self.ask_round(r.saturating_add(1), fx);
        }
    }

    /// Asks for round `round`'s table on the open socket.
    fn ask_round(&mut self, round: u32, fx: &mut Vec<Effect>) {
        let Seek::Tournament {
            id, round: asked, ..
        } = &mut self.seek
        else {
            return;
        };
        *asked = round;
        if let (Some(socket), true, Some(stream)) = (self.socket, self.open, self.stream.as_mut()) {
            fx.push(send(socket, &stream.ask_next_table(id, round)));
        }
    }

    /// The server's answer about the next table: kept for 下一桌, or acted on at once when
    /// the player already asked for it.
    pub(super) fn noticed(&mut self, next: NextTable, token: Option<&str>, fx: &mut Vec<Effect>) {
        match next.state {
            // Answered by the stream itself.
            NextTableState::Commit => return,
            NextTableState::Bye => self.ask_round(next.round.saturating_add(1), fx),
            _ => {}
        }
        self.next = Some(next);
        if matches!(self.phase, Phase::Awaiting) {
            self.go_next(token, fx);
        }
    }

    /// 下一桌 after a tournament match: sits at the next table if it is known, else waits
    /// for it (the view says so). False at any other table.
    pub(super) fn go_next(&mut self, token: Option<&str>, fx: &mut Vec<Effect>) -> bool {
        if !matches!(self.seek, Seek::Tournament { .. }) {
            return false;
        }
        self.ended = None;
        self.phase = Phase::Awaiting;
        let Some(next) = self.next.clone() else {
            if self.socket.is_none() {
                self.ask_by_http(token, fx);
            }
            return true;
        };
        match next.state {
            NextTableState::Seated => {
                self.next = None;
                let table = next.table.unwrap_or_default();
                self.phase = Phase::Seated;
                self.notice = None;
                let here = next.server.is_empty() || next.server == self.server;
                match (
                    self.socket.filter(|_| self.open && here),
                    self.stream.as_mut(),
                ) {
                    (Some(socket), Some(stream)) => {
                        fx.push(send(socket, &stream.sit_at(table, self.now)));
                    }
                    _ => {
                        // Another node: a socket of its own.
                        if let Some(id) = self.socket.take() {
                            fx.push(Effect::CloseSocket { id });
                        }
                        self.sit_new(table, next.server, token, fx);
                    }
                }
            }
            state if state.is_last() => {
                self.phase = Phase::Done(match state {
                    NextTableState::Out => SeatState::Out,
                    NextTableState::Finished => SeatState::Finished,
                    _ => SeatState::Cancelled,
                });
            }
            // A bye: the round after is asked for already.
            _ => {}
        }
        true
    }

    /// The socket is gone while the next table is awaited: the HTTP seat request asks.
    pub(super) fn ask_by_http(&mut self, token: Option<&str>, fx: &mut Vec<Effect>) {
        let request = self.id();
        let (Seek::Tournament { id, round, seed }, Some(token)) = (&self.seek, token) else {
            return;
        };
        fx.push(tournaments::seat_request(
            request, id, *round, None, *seed, token,
        ));
        self.commitment = None;
        self.phase = Phase::Queueing { request };
    }

    /// The connection to a tournament table failed twice in a row: where the table runs is
    /// asked again rather than its old node.
    pub(super) fn relocates(&self) -> bool {
        matches!(self.seek, Seek::Tournament { .. })
            && self.losses >= 2
            && self.stream.as_ref().is_some_and(|s| !s.is_over())
    }

    /// The next table is awaited and no notice has named it (none, or a bye).
    pub(super) fn awaits_notice(&self) -> bool {
        matches!(self.phase, Phase::Awaiting)
            && self
                .next
                .as_ref()
                .is_none_or(|n| n.state == NextTableState::Bye)
    }

    /// While the next table is awaited: a bye's words, or the round's.
    pub(super) fn awaited_words(&self) -> Option<SeatState> {
        (self.next.as_ref()?.state == NextTableState::Bye).then_some(SeatState::Bye)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tongcheng_core::fair::Bytes32;
    use tongcheng_core::protocol::{ClientMsg, RoundTable, ServerMsg};
    use tongcheng_core::rules::RuleSet;

    use super::*;
    use crate::catalogue::Lang;

    fn sent(fx: &[Effect]) -> Vec<ClientMsg> {
        fx.iter()
            .filter_map(|f| match f {
                Effect::SendFrame { text, .. } => ClientMsg::parse(text).ok(),
                _ => None,
            })
            .collect()
    }

    fn notice(state: NextTableState, round: u32, table: Option<&str>) -> String {
        ServerMsg::NextTable(Box::new(NextTable {
            tournament: "t1".into(),
            round,
            state,
            commitment: None,
            table: table.map(str::to_string),
            server: String::new(),
        }))
        .to_json()
    }

    /// A tournament table whose round-1 match has just ended on socket `socket`.
    fn after_round_one() -> (OnlineTable, u64, Vec<Effect>) {
        let (mut t, socket) = at_round_one();
        let mut fx = Vec::new();
        let end = ServerMsg::MatchEnd {
            seq: 1,
            scores: [0; 4],
        };
        t.frame(socket, &end.to_json(), false, Some("tok"), &mut fx);
        (t, socket, fx)
    }

    /// At round 1's table, welcomed on socket `socket`.
    fn at_round_one() -> (OnlineTable, u64) {
        let mut fx = Vec::new();
        let seek = Seek::Tournament {
            id: "t1".into(),
            round: 1,
            seed: 5,
        };
        let mut t = OnlineTable::seek(seek, "tok", 0, &mut fx);
        let seated = json!({"state": "seated", "round": 1, "table": "tab1", "server": "http://n"});
        t.answered(200, seated, "tok", &mut fx);
        let socket = t.socket.expect("a socket asked for");
        t.socket_opened(socket, &"00".repeat(32), &mut fx);
        let welcome = ServerMsg::Welcome {
            version: 2,
            table: "tab1".into(),
            player: 0,
            players: Vec::new(),
            resumed: false,
            rules: Box::new(RuleSet::preset("guobiao").unwrap()),
            round: Some(Box::new(RoundTable {
                tournament: "t1".into(),
                round: 1,
                table: 0,
                commitment: Bytes32([1; 32]),
            })),
        };
        t.frame(socket, &welcome.to_json(), false, Some("tok"), &mut fx);
        (t, socket)
    }

    #[test]
    fn a_table_whose_node_is_lost_is_looked_for_again_by_the_seat_request() {
        let (mut t, socket) = at_round_one();
        let mut fx = Vec::new();
        t.socket_closed(socket, Some("tok"), &mut fx);
        // The first loss: the same node again.
        t.tick(10_000, Some("tok"), &mut fx);
        let Some(Effect::OpenSocket { id, server, .. }) = fx.pop() else {
            panic!("{fx:?}")
        };
        assert_eq!(server, "http://n");
        t.socket_closed(id, Some("tok"), &mut fx);
        fx.clear();
        // The second: where does the table run now?
        t.tick(20_000, Some("tok"), &mut fx);
        let [Effect::Request { id, path, body, .. }] = fx.as_slice() else {
            panic!("{fx:?}")
        };
        assert_eq!(path, "/v1/tournaments/t1/seat");
        assert_eq!(body.as_ref().unwrap()["round"], 1);
        let moved = json!({"state": "seated", "round": 1, "table": "tab1", "server": "http://m"});
        let id = *id;
        fx.clear();
        assert!(t.awaits(id));
        t.answered(200, moved, "tok", &mut fx);
        assert!(matches!(
            fx.as_slice(),
            [Effect::OpenSocket { server, .. }] if server == "http://m"
        ));
    }

    #[test]
    fn the_next_table_is_asked_on_the_socket_and_sat_at_on_it() {
        let (mut t, socket, fx) = after_round_one();
        assert!(
            !fx.iter().any(|f| matches!(f, Effect::CloseSocket { .. })),
            "the socket stays"
        );
        assert!(matches!(
            sent(&fx).as_slice(),
            [ClientMsg::NextTable { round: 2, .. }]
        ));
        // 下一桌 before the answer: the wait is shown, not the last table.
        let mut fx = Vec::new();
        assert!(t.next_hand(Some("tok"), &mut fx));
        assert!(t.view(Lang::ZhCn).is_none());
        assert_eq!(t.waiting_view(Lang::ZhCn).unwrap().status, "等待本轮开桌…");
        // Seated at a table of this node: joined on the same socket at once.
        t.frame(
            socket,
            &notice(NextTableState::Seated, 2, Some("tab2")),
            false,
            Some("tok"),
            &mut fx,
        );
        assert!(matches!(
            sent(&fx).as_slice(),
            [ClientMsg::Join { table: Some(t), after: None, .. }] if t == "tab2"
        ));
        assert!(!fx.iter().any(|f| matches!(f, Effect::OpenSocket { .. })));
        assert_eq!(t.socket, Some(socket));
        assert!(matches!(t.phase, Phase::Seated));
    }

    #[test]
    fn a_bye_asks_for_the_round_after_and_a_lost_socket_asks_over_http() {
        let (mut t, socket, _) = after_round_one();
        let mut fx = Vec::new();
        t.frame(
            socket,
            &notice(NextTableState::Bye, 2, None),
            false,
            Some("tok"),
            &mut fx,
        );
        assert!(matches!(
            sent(&fx).as_slice(),
            [ClientMsg::NextTable { round: 3, .. }]
        ));
        assert!(t.next_hand(Some("tok"), &mut fx));
        assert!(t.waiting_view(Lang::En).unwrap().status.contains("bye"));
        fx.clear();
        t.socket_closed(socket, Some("tok"), &mut fx);
        let [Effect::Request { path, body, .. }] = fx.as_slice() else {
            panic!("{fx:?}")
        };
        assert_eq!(path, "/v1/tournaments/t1/seat");
        assert_eq!(body.as_ref().unwrap()["round"], 3);
    }

    #[test]
    fn the_end_of_the_tournament_is_said_after_the_last_match() {
        let (mut t, socket, _) = after_round_one();
        let mut fx = Vec::new();
        t.frame(
            socket,
            &notice(NextTableState::Finished, 2, None),
            false,
            Some("tok"),
            &mut fx,
        );
        assert!(t.next_hand(Some("tok"), &mut fx));
        assert_eq!(t.waiting_view(Lang::ZhCn).unwrap().status, "比赛已结束");
    }
}
