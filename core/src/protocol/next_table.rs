//! 下一桌 over the table connection: a tournament entrant asks for his table in a round
//! ([`super::ClientMsg::NextTable`]) and the server answers when there is something to say
//! ([`NextTable`]): the round's commitment (the stream answers it with a contribution of
//! its own), then his table, a bye, or that the tournament is over for him. Nothing is
//! polled: the server holds the question while the round is not seated, on the socket the
//! entrant already has (the one of his last table, or one opened for the purpose).

use serde::{Deserialize, Serialize};

use crate::fair::Commitment;

/// What the server says of an entrant's table in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NextTableState {
    /// The round's commitment is out: ask again with it and a contribution (the seat stream
    /// does so by itself).
    Commit,
    /// Join `table` (on `server`).
    Seated,
    /// Sitting this round out (the field is not in fours and bots are not allowed).
    Bye,
    /// Cut (打立出局): the tournament is over for this entrant.
    Out,
    Finished,
    Cancelled,
}

impl NextTableState {
    /// No later round will come for the entrant.
    pub fn is_last(self) -> bool {
        matches!(
            self,
            NextTableState::Out | NextTableState::Finished | NextTableState::Cancelled
        )
    }
}

/// The answer to [`super::ClientMsg::NextTable`]: the entrant's table in round `round`, or
/// why not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextTable {
    pub tournament: String,
    /// The round this answer is about (1-based).
    pub round: u32,
    pub state: NextTableState,
    /// That round's commitment, once announced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<Commitment>,
    /// The table to join, when seated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The base URL of the node that runs the table (empty: the one this connection is to).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub server: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair::Bytes32;
    use crate::protocol::stream::{OnlineOptions, OnlineUpdate, SeatStream};
    use crate::protocol::{ClientMsg, ServerMsg};

    fn notice(state: NextTableState, round: u32) -> String {
        ServerMsg::NextTable(Box::new(NextTable {
            tournament: "t1".into(),
            round,
            state,
            commitment: Some(Bytes32([7; 32])),
            table: (state == NextTableState::Seated).then(|| "tab".into()),
            server: String::new(),
        }))
        .to_json()
    }

    #[test]
    fn the_question_and_its_answers_round_trip_and_ids_are_checked() {
        let ask = ClientMsg::NextTable {
            tournament: "a1b2".into(),
            round: 3,
            commitment: Some(Bytes32([1; 32])),
            contribution: Some(Bytes32([2; 32])),
        };
        assert_eq!(ClientMsg::parse(&ask.to_json()), Ok(ask));
        for bad in ["", "a b", "x/y", &"a".repeat(40)] {
            let m = ClientMsg::NextTable {
                tournament: bad.into(),
                round: 1,
                commitment: None,
                contribution: None,
            };
            let e = ClientMsg::parse(&m.to_json()).unwrap_err();
            assert!(e.to_string().contains("tournament"), "{e}");
        }
        let text = notice(NextTableState::Seated, 2);
        let back = ServerMsg::parse(&text).unwrap();
        assert_eq!(back.seq(), None, "not a stream frame");
        assert_eq!(back.to_json(), text);
        assert!(ServerMsg::parse(&text.replace("\"seated\"", "\"sleeping\"")).is_err());
    }

    #[test]
    fn the_stream_contributes_to_the_round_it_asked_for_once_committed() {
        let mut s = SeatStream::new(OnlineOptions::default(), [3; 32]);
        // A commitment nobody asked for is shown, not answered.
        let step = s.receive(&notice(NextTableState::Commit, 1), 0);
        assert!(step.send.is_empty());
        assert_eq!(
            s.ask_next_table("t1", 2),
            ClientMsg::NextTable {
                tournament: "t1".into(),
                round: 2,
                commitment: None,
                contribution: None,
            }
        );
        let step = s.receive(&notice(NextTableState::Commit, 2), 0);
        let [
            ClientMsg::NextTable {
                round: 2,
                commitment: Some(c),
                contribution: Some(mine),
                ..
            },
        ] = step.send.as_slice()
        else {
            panic!("{:?}", step.send)
        };
        assert_eq!(*c, Bytes32([7; 32]));
        assert_ne!(*mine, Bytes32([0; 32]));
        let step = s.receive(&notice(NextTableState::Seated, 2), 0);
        assert!(step.send.is_empty());
        let [OnlineUpdate::NextTable(n)] = step.updates.as_slice() else {
            panic!("{:?}", step.updates)
        };
        assert_eq!(n.table.as_deref(), Some("tab"));
        // Answered: a second commitment is not contributed to again.
        assert!(
            s.receive(&notice(NextTableState::Commit, 2), 0)
                .send
                .is_empty()
        );
    }

    #[test]
    fn sitting_at_the_next_table_starts_a_new_match_on_the_same_stream() {
        let mut s = SeatStream::new(
            OnlineOptions {
                table: Some("old".into()),
                people: Some(2),
                ..OnlineOptions::default()
            },
            [3; 32],
        );
        let _ = s.join(0);
        let _ = s.join(5);
        let ClientMsg::Join {
            table,
            people,
            after,
            ..
        } = s.sit_at("new".into(), 10)
        else {
            panic!()
        };
        assert_eq!(table.as_deref(), Some("new"));
        assert_eq!((people, after), (None, None), "a first join, not a resume");
        assert_eq!(s.table_id(), Some("new"));
        assert!(!s.is_over());
        assert_eq!(s.stats().last_seq, 0);
    }
}
