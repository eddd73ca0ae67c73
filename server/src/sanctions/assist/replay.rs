//! One ranked hand replayed: at each non-forced decision a person answered, where his choice
//! falls in the hard bot's ranking, whether the decision was a hard one, and how long he took.

use std::sync::LazyLock;

use tongcheng_core::game::{Action, Game, SeatView};
use tongcheng_core::hint::{Hint, hint};
use tongcheng_core::record::{HandRecord, Verifier};

use crate::store::Think;

/// One judged decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judged {
    /// Where the choice falls in the hard bot's ranking (0: its first choice).
    pub rank: u32,
    /// A real choice between near equals (several discards as fast as the best, or a claim
    /// the hard bot would take): people take longer over these.
    pub hard: bool,
    /// The person's think time, when the table recorded it.
    pub think_ms: Option<u32>,
}

/// The hard bot's ranking of a decision's choices, best first, and whether it is a hard
/// one; `None` for a forced decision (one distinct choice) or a win on offer (taken almost
/// always, by anyone).
pub fn ranking(view: &SeatView) -> Option<(Vec<Action>, bool)> {
    let d = view.decision.as_ref()?;
    let mut distinct: Vec<Action> = Vec::new();
    for a in &d.legal {
        if !distinct.contains(a) {
            distinct.push(*a);
        }
    }
    if distinct.len() < 2 || d.legal.contains(&Action::Win) {
        return None;
    }
    match hint(view)? {
        Hint::Turn {
            recommended,
            discards,
            ..
        } => {
            let best = discards.iter().map(|h| h.shanten).min().unwrap_or(i8::MAX);
            let hard = discards.iter().filter(|h| h.shanten == best).count() >= 2;
            let mut order = vec![recommended];
            for h in &discards {
                let a = Action::Discard(h.tile);
                if !order.contains(&a) {
                    order.push(a);
                }
            }
            Some((order, hard))
        }
        Hint::Claim { recommended, .. } => {
            let hard = recommended != Action::Pass;
            let mut order = vec![recommended];
            order.extend(distinct.into_iter().filter(|a| *a != recommended));
            Some((order, hard))
        }
        Hint::Win { .. } => None,
    }
}

/// Where `chosen` falls in `order` (past the end when the bot did not rank it).
pub fn rank_of(order: &[Action], chosen: Action) -> u32 {
    order
        .iter()
        .position(|a| *a == chosen)
        .unwrap_or(order.len()) as u32
}

/// Replays one hand; per record seat, the judged decisions of the seats in `people`. With
/// think times recorded, only the decisions they cover count (the others were the seat's
/// stand-in's: timeouts and 托管); a hand kept without them counts every decision.
pub fn analyze_hand(
    record: &HandRecord,
    people: [bool; 4],
    think: &[Think],
) -> Result<[Vec<Judged>; 4], String> {
    // Verified first, as the collusion report does: a damaged row is refused, not replayed.
    static VERIFIER: LazyLock<Verifier> = LazyLock::new(|| Verifier::any_preset().allow_custom());
    VERIFIER.verify(record).map_err(|e| e.to_string())?;
    let mut out: [Vec<Judged>; 4] = Default::default();
    let mut game = Game::new(record.setup.clone());
    for (i, a) in record.actions.iter().enumerate() {
        let s = a.seat.index();
        if s < 4 && people[s] && game.is_pending(a.seat) {
            let at = game.events().len() as u32;
            let timed = think
                .iter()
                .find(|t| usize::from(t.seat) == s && t.at == at)
                .map(|t| t.ms);
            let own = think.is_empty() || timed.is_some();
            let view = game.view(a.seat);
            if own && let Some((order, hard)) = ranking(&view) {
                out[s].push(Judged {
                    rank: rank_of(&order, a.action),
                    hard,
                    think_ms: timed,
                });
            }
        }
        game.apply(a.seat, a.action)
            .map_err(|e| format!("action {i} does not replay: {e}"))?;
    }
    Ok(out)
}
