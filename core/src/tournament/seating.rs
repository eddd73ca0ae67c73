//! Who sits with whom in a round: entrants in standing order, four to a table, with no two
//! who may not meet at one table (one device key, link group or address: the host says who
//! conflicts), bots or byes for a field that is not a multiple of four.

use super::EntrantId;

/// A round's tables and byes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seating {
    /// Each table's player slots (slot 0 is East for the first hand); `None`: a bot.
    pub tables: Vec<[Option<EntrantId>; 4]>,
    /// Entrants sitting this round out (no bots allowed and the field not in fours).
    pub byes: Vec<EntrantId>,
}

/// Seats `order` (best standing first; round 1: the draw) for round `round` (0-based).
/// `conflict(a, b)` says two entrants may not sit at one table; a conflict that no swap with
/// a later table can undo is left (the host may then bar the table). Slots rotate with the
/// round so that nobody is always East.
pub fn seat_round(
    order: &[EntrantId],
    round: usize,
    bots_allowed: bool,
    conflict: impl Fn(EntrantId, EntrantId) -> bool,
) -> Seating {
    let left_over = order.len() % 4;
    let (seated, byes) = if bots_allowed || left_over == 0 {
        (order.to_vec(), Vec::new())
    } else {
        // The lowest in the standing sit this round out.
        let cut = order.len() - left_over;
        (order[..cut].to_vec(), order[cut..].to_vec())
    };
    let mut seats: Vec<Option<EntrantId>> = seated.into_iter().map(Some).collect();
    while !seats.len().is_multiple_of(4) {
        seats.push(None);
    }
    let tables = seats.len() / 4;
    for t in 0..tables {
        for i in 1..4 {
            let k = t * 4 + i;
            if !clashes(&seats, t, k, seats[k], &conflict) {
                continue;
            }
            // The nearest entrant from a later table (else an earlier one) who sits here
            // without a clash, and whose move clashes with nobody at his new table.
            let later = (k + 1..seats.len()).filter(|&j| j / 4 > t);
            let earlier = (0..t * 4).rev();
            let swap = later.chain(earlier).find(|&j| {
                !clashes(&seats, t, k, seats[j], &conflict)
                    && !clashes(&seats, j / 4, j, seats[k], &conflict)
            });
            if let Some(j) = swap {
                seats.swap(k, j);
            }
        }
    }
    let tables = seats
        .chunks(4)
        .map(|c| {
            let mut table = [c[0], c[1], c[2], c[3]];
            table.rotate_left(round % 4);
            table
        })
        .collect();
    Seating { tables, byes }
}

/// Whether `who`, sitting at position `k` of table `t`, conflicts with anyone else there.
fn clashes(
    seats: &[Option<EntrantId>],
    t: usize,
    k: usize,
    who: Option<EntrantId>,
    conflict: &impl Fn(EntrantId, EntrantId) -> bool,
) -> bool {
    let Some(me) = who else {
        return false;
    };
    (t * 4..t * 4 + 4)
        .filter(|&i| i != k)
        .filter_map(|i| seats[i])
        .any(|other| conflict(me, other))
}

/// Whether a seating puts two conflicting entrants at one table.
pub fn has_conflict(seating: &Seating, conflict: impl Fn(EntrantId, EntrantId) -> bool) -> bool {
    seating.tables.iter().any(|t| {
        let people: Vec<EntrantId> = t.iter().flatten().copied().collect();
        people
            .iter()
            .enumerate()
            .any(|(i, &a)| people[i + 1..].iter().any(|&b| conflict(a, b)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_to_a_table_in_standing_order_with_bots_or_byes_for_the_rest() {
        let order: Vec<EntrantId> = (1..=10).collect();
        let with_bots = seat_round(&order, 0, true, |_, _| false);
        assert_eq!(with_bots.tables.len(), 3);
        assert_eq!(with_bots.tables[0], [Some(1), Some(2), Some(3), Some(4)]);
        assert_eq!(with_bots.tables[2], [Some(9), Some(10), None, None]);
        assert!(with_bots.byes.is_empty());
        let no_bots = seat_round(&order, 0, false, |_, _| false);
        assert_eq!(no_bots.tables.len(), 2);
        assert_eq!(no_bots.byes, [9, 10]);
        // The slots turn with the round.
        let second = seat_round(&order[..4], 1, false, |_, _| false);
        assert_eq!(second.tables[0], [Some(2), Some(3), Some(4), Some(1)]);
    }

    #[test]
    fn entrants_who_may_not_meet_are_seated_apart() {
        // 1 and 2 share an address, as do 5 and 6: the standing would seat both pairs
        // together.
        let same = |a: EntrantId, b: EntrantId| {
            (a.min(b), a.max(b)) == (1, 2) || (a.min(b), a.max(b)) == (5, 6)
        };
        let order: Vec<EntrantId> = (1..=12).collect();
        let s = seat_round(&order, 0, false, same);
        assert!(!has_conflict(&s, same), "{s:?}");
        assert!(has_conflict(
            &seat_round(&order, 0, false, |_, _| false),
            same
        ));
        let mut all: Vec<EntrantId> = s.tables.iter().flatten().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, order, "everyone is seated once");
    }
}
