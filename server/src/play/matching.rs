//! The queue of one node: each waiting request runs the matcher every `queue_tick_ms` (at
//! most once per half tick per rule set and kind, however many wait) and answers when its
//! player is seated. A request whose client hung up leaves the queue at the next run.

use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tongcheng_api::play::Seated;
use tongcheng_core::rules::RuleSet;

use super::queue::{Candidate, Queue};
use super::{Online, lock, queue_replaced, queue_timeout};
use crate::auth::random_id;
use crate::error::ApiError;

/// Waits in this node's queue of `rules` (ranked or casual) until seated; bots fill after the
/// configured wait, so it always ends.
pub async fn wait(
    online: &Online,
    who: Candidate,
    rules: RuleSet,
    ranked: bool,
) -> Result<Seated, ApiError> {
    let config = &online.config;
    let key = (rules.name.clone(), ranked);
    let (ticket, mut seated) = oneshot::channel();
    lock(&online.lobby.queues)?
        .entry(key.clone())
        .or_insert_with(|| Queue::new(config.queue.clone(), ranked))
        .push(who, ticket, Instant::now());
    let give_up = Instant::now() + config.queue_wait_limit();
    let tick = Duration::from_millis(config.queue_tick_ms.max(1));
    loop {
        match tokio::time::timeout(tick, &mut seated).await {
            Ok(Ok(s)) => return Ok(s),
            Ok(Err(_)) => return Err(queue_replaced()),
            Err(_) if Instant::now() >= give_up => return Err(queue_timeout()),
            Err(_) => match_queue(online, &key, &rules)?,
        }
    }
}

/// Runs one queue's matcher and opens a table for every group it seats.
fn match_queue(online: &Online, key: &(String, bool), rules: &RuleSet) -> Result<(), ApiError> {
    let config = &online.config;
    let mut queues = lock(&online.lobby.queues)?;
    let Some(q) = queues.get_mut(key) else {
        return Ok(());
    };
    let now = Instant::now();
    let every = Duration::from_millis(config.queue_tick_ms.max(1));
    if q.ran_within(every / 2, now) {
        return Ok(());
    }
    q.drop_gone(|t| t.is_closed());
    let seatings = q.tick(now);
    if q.is_empty() {
        queues.remove(key);
    }
    drop(queues);
    if seatings.is_empty() {
        return Ok(());
    }
    let mut tables = lock(&online.lobby.tables)?;
    for seating in seatings {
        let accounts: Vec<i64> = seating.players.iter().map(|p| p.0.account).collect();
        if tables.len() >= config.max_tables {
            // Nobody is told: their requests end with `queue_timeout`.
            tracing::warn!(max_tables = config.max_tables, "queue: no room for a table");
            continue;
        }
        let id = random_id();
        let people = accounts.len() as u8;
        let ranked = key.1;
        online.open_queue_table(&mut tables, &id, rules, accounts, ranked);
        for (_, ticket) in seating.players {
            let _ = ticket.send(Seated {
                table: id.clone(),
                rules: rules.name.clone(),
                ranked,
                people,
                bots: 4 - people,
                server: online.node.url().to_string(),
            });
        }
    }
    Ok(())
}
