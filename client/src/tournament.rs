//! A tournament entrant's side of the seat request (`POST /v1/tournaments/{id}/seat`): read
//! the round's commitment first, then send 32 random bytes of our own with it, then wait for
//! the table. Both HTTP clients ask the same way ([`next_request`]).

use tongcheng_api::NoParams;
use tongcheng_api::endpoints::NextTable;
use tongcheng_api::tournament::{SeatRequest, SeatState, TournamentId, TournamentSeat};
use tongcheng_core::fair::Bytes32;

use crate::{AsyncHttpApi, ClientError, HttpApi, entropy};

/// What to ask next after `answer`: `None` when it is the answer (seated, a bye, out,
/// finished, cancelled); otherwise `req` is updated (a contribution under the commitment the
/// server just published; a `waiting` poll is asked again as it was).
pub fn next_request(answer: &TournamentSeat, req: &mut SeatRequest) -> Option<()> {
    match answer.state {
        SeatState::Commit => {
            req.round = answer.round;
            req.commitment = answer.commitment.clone();
            req.contribution = Some(Bytes32(entropy()).to_hex());
            Some(())
        }
        SeatState::Waiting => Some(()),
        _ => None,
    }
}

fn first(round: u32) -> SeatRequest {
    SeatRequest {
        round,
        commitment: None,
        contribution: None,
    }
}

/// One's table (or why not) in round `round` (1-based) of tournament `id`.
pub async fn next_table(
    api: &AsyncHttpApi,
    id: &str,
    round: u32,
) -> Result<TournamentSeat, ClientError> {
    let path = TournamentId { id: id.to_string() };
    let mut req = first(round);
    loop {
        let answer = api.call::<NextTable>(&path, &NoParams {}, &req).await?;
        if next_request(&answer, &mut req).is_none() {
            return Ok(answer);
        }
    }
}

/// [`next_table`], blocking.
pub fn next_table_blocking(
    api: &HttpApi,
    id: &str,
    round: u32,
) -> Result<TournamentSeat, ClientError> {
    let path = TournamentId { id: id.to_string() };
    let mut req = first(round);
    loop {
        let answer = api.call::<NextTable>(&path, &NoParams {}, &req)?;
        if next_request(&answer, &mut req).is_none() {
            return Ok(answer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(state: SeatState) -> TournamentSeat {
        TournamentSeat {
            state,
            round: 2,
            commitment: Some("ab".repeat(32)),
            table: None,
            server: String::new(),
        }
    }

    #[test]
    fn a_contribution_goes_only_with_the_commitment_read() {
        let mut req = first(1);
        assert_eq!(
            next_request(&answer(SeatState::Waiting), &mut req),
            Some(())
        );
        assert_eq!(req, first(1), "a poll is asked again as it was");
        assert_eq!(next_request(&answer(SeatState::Commit), &mut req), Some(()));
        assert_eq!(req.round, 2);
        assert_eq!(req.commitment.as_deref(), Some("ab".repeat(32).as_str()));
        let c = req.contribution.clone().unwrap();
        assert!(Bytes32::from_hex(&c).is_ok(), "{c}");
        for done in [
            SeatState::Seated,
            SeatState::Bye,
            SeatState::Out,
            SeatState::Finished,
        ] {
            assert_eq!(next_request(&answer(done), &mut req), None);
        }
    }
}
