//! One player: a phone's life in a load run. It logs in with its own device key, queues,
//! sits at the table the queue made, answers every decision with its bot's choice after a
//! pause, says ready after each hand, and queues again when its match ends, until the play
//! time is over. Everything it says goes through `tongcheng-client`, as a phone's would.
//!
//! Action → event latency is timed for turn actions (discard, kong, self-drawn win): the next
//! event after a turn action is always its own, which every other seat receives in the same
//! flush; a claim's answer is not timed, since its event waits for the other seats.

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use tongcheng_client::api::NoParams;
use tongcheng_client::api::endpoints::EnterTournament;
use tongcheng_client::api::tournament::{EntryRequest, SeatState, TournamentId};
use tongcheng_client::tournament::next_table;
use tongcheng_client::{
    AsyncHttpApi, AsyncSeat, ClientError, HttpOptions, Identity, OnlineOptions, OnlineUpdate,
};
use tongcheng_core::bot::{Bot, LevelBot};
use tongcheng_core::game::{Action, DecisionKind};
use tongcheng_core::protocol::{ClientMsg, NextTableState};

use crate::run::Ctx;

/// Player `i`'s own loopback address: 127.0.0.2 onwards.
pub(crate) fn address(i: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::from(
        u32::from(Ipv4Addr::new(127, 0, 0, 2)) + i as u32,
    ))
}

/// A pause drawn uniformly from `(min, max)` milliseconds.
fn pause(rng: &mut ChaCha8Rng, (min, max): (u64, u64)) -> Duration {
    Duration::from_millis(min + rng.next_u64() % (max - min + 1))
}

/// Player `i` logged in from his own address: his API client and session token.
async fn log_in(ctx: &Ctx, i: usize) -> Option<(AsyncHttpApi, String)> {
    let ip = address(i);
    let entry = &ctx.urls[i % ctx.urls.len()];
    // A connection per request, as the old loopback client made: ten thousand idle pools
    // would hold as many descriptors on the server.
    let options = HttpOptions {
        local_address: Some(ip),
        keep_alive: false,
    };
    let login = async {
        let mut api = AsyncHttpApi::new(entry, options)?;
        api.login(&Identity::generate()?, "loadgen", None).await?;
        Ok::<_, ClientError>(api)
    };
    let api = match login.await {
        Ok(api) => api,
        Err(e) => {
            ctx.counters.error(format!("login: {e}"));
            return None;
        }
    };
    let Some(token) = api.token().map(str::to_string) else {
        ctx.counters.error("login: no session token".into());
        return None;
    };
    ctx.counters.logged_in.fetch_add(1, Relaxed);
    Some((api, token))
}

/// The node that runs a table: `server` when the answer names one, else where we entered.
fn node<'a>(server: &'a str, entry: &'a str) -> &'a str {
    if server.is_empty() { entry } else { server }
}

pub(crate) async fn player(ctx: Arc<Ctx>, i: usize) {
    let ip = address(i);
    let entry = &ctx.urls[i % ctx.urls.len()];
    let Some((api, token)) = log_in(&ctx, i).await else {
        return;
    };
    let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
    let mut bot = LevelBot::new(ctx.args.level, i as u64);
    while !ctx.stopping.load(Relaxed) {
        let seated = match api
            .queue(Some(ctx.args.rules.as_str()), !ctx.args.casual)
            .await
        {
            Ok(s) => s,
            Err(e) => return ctx.counters.error(format!("queue: {e}")),
        };
        let mut table = Table {
            ctx: &ctx,
            rng: &mut rng,
            bot: &mut bot,
            latencies: Vec::new(),
        };
        let node = node(&seated.server, entry);
        if let Err(e) = table.counted(ip, &token, &seated.table, node).await {
            return ctx.counters.error(format!("table {}: {e}", seated.table));
        }
    }
}

/// Player `i` as a tournament entrant: signs up for `id`, then plays each round he is
/// seated in until he is out or the tournament is over. He asks for each next table on his
/// table connection (one socket for the whole tournament), or by the HTTP long poll with
/// `--seat-by-http`.
pub(crate) async fn entrant(ctx: Arc<Ctx>, i: usize, id: String) {
    let entry = &ctx.urls[i % ctx.urls.len()];
    let Some((api, token)) = log_in(&ctx, i).await else {
        return;
    };
    let c = &ctx.counters;
    let path = TournamentId { id: id.clone() };
    if let Err(e) = api
        .call::<EnterTournament>(&path, &NoParams {}, &EntryRequest::default())
        .await
    {
        return c.error(format!("sign up: {e}"));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
    let mut bot = LevelBot::new(ctx.args.level, i as u64);
    let mut table = Table {
        ctx: &ctx,
        rng: &mut rng,
        bot: &mut bot,
        latencies: Vec::new(),
    };
    let played = if ctx.args.seat_by_http {
        table.rounds_by_http(&api, &token, i, &id, entry).await
    } else {
        table.rounds_on_socket(&token, i, &id, entry).await
    };
    if let Err(e) = played {
        c.error(e);
    }
}

impl Table<'_> {
    /// Every round, each next table asked on the table connection.
    async fn rounds_on_socket(
        &mut self,
        token: &str,
        i: usize,
        id: &str,
        entry: &str,
    ) -> Result<(), String> {
        let mut seat = AsyncSeat::entrant(entry, token, Some(address(i)), false)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let mut round = 1;
        let result = loop {
            let next = match seat.next_table(id, round).await {
                Ok(n) => n,
                Err(e) => break Err(format!("round {round}: {e}")),
            };
            match next.state {
                NextTableState::Seated => {
                    let table = next.table.clone().unwrap_or_default();
                    self.begin();
                    let mut played = seat.sit_at(&table, &next.server).await;
                    if played.is_ok() {
                        played = self
                            .answer_all(&mut seat)
                            .await
                            .map_err(ClientError::Network);
                    }
                    if let Err(e) = self.end(played.map_err(|e| e.to_string())) {
                        break Err(format!("round {} table {table}: {e}", next.round));
                    }
                }
                NextTableState::Bye => {}
                state if state.is_last() => break Ok(()),
                other => break Err(format!("round {round}: {other:?}")),
            }
            round = next.round.saturating_add(1);
        };
        seat.close().await;
        result
    }

    /// Every round, each next table asked by the HTTP long poll and joined on a new
    /// connection.
    async fn rounds_by_http(
        &mut self,
        api: &AsyncHttpApi,
        token: &str,
        i: usize,
        id: &str,
        entry: &str,
    ) -> Result<(), String> {
        let mut round = 1;
        loop {
            let seat = next_table(api, id, round)
                .await
                .map_err(|e| format!("round {round}: {e}"))?;
            match seat.state {
                SeatState::Seated => {
                    let table_id = seat.table.clone().unwrap_or_default();
                    let node = node(&seat.server, entry);
                    self.counted(address(i), token, &table_id, node)
                        .await
                        .map_err(|e| format!("round {} table {table_id}: {e}", seat.round))?;
                }
                SeatState::Bye => {}
                SeatState::Out | SeatState::Finished => return Ok(()),
                other => return Err(format!("round {round}: {}", other.as_str())),
            }
            round = seat.round.saturating_add(1);
        }
    }
}

/// An answer waiting for its pause.
enum Answer {
    /// An action; `timed`: a turn action, whose event is timed.
    Act {
        action: Action,
        timed: bool,
    },
    Ready,
}

/// One match at one table.
struct Table<'a> {
    ctx: &'a Ctx,
    rng: &'a mut ChaCha8Rng,
    bot: &'a mut LevelBot,
    /// Turn action → its event, in microseconds.
    latencies: Vec<u32>,
}

impl Table<'_> {
    /// [`Table::play`], counted: the match started and finished (or not), the player at a
    /// table meanwhile, and the latencies kept.
    async fn counted(
        &mut self,
        ip: IpAddr,
        token: &str,
        table: &str,
        node: &str,
    ) -> Result<(), String> {
        self.begin();
        let result = self.play(ip, token, table, node).await;
        self.end(result)
    }

    /// A match starts: the player is at a table.
    fn begin(&self) {
        let c = &self.ctx.counters;
        c.matches_started.fetch_add(1, Relaxed);
        c.playing.fetch_add(1, Relaxed);
    }

    /// The match ended (or not): its latencies kept.
    fn end(&mut self, result: Result<(), String>) -> Result<(), String> {
        let c = &self.ctx.counters;
        c.latencies(std::mem::take(&mut self.latencies));
        c.playing.fetch_sub(1, Relaxed);
        if result.is_ok() {
            c.matches_finished.fetch_add(1, Relaxed);
        }
        result
    }

    /// Joins, answers every decision after a pause and says ready after each hand, until
    /// the match ends.
    async fn play(
        &mut self,
        ip: IpAddr,
        token: &str,
        table: &str,
        node: &str,
    ) -> Result<(), String> {
        let options = OnlineOptions {
            table: Some(table.to_string()),
            ..OnlineOptions::default()
        };
        // Ready is said after a pause, as a person would: not by the stream at once.
        let mut seat = AsyncSeat::connect(node, token, options, Some(ip), false)
            .await
            .map_err(|e| format!("join: {e}"))?;
        let result = self.answer_all(&mut seat).await;
        seat.close().await;
        result
    }

    async fn answer_all(&mut self, seat: &mut AsyncSeat) -> Result<(), String> {
        let c = &self.ctx.counters;
        let think = self.ctx.args.think_ms;
        let mut pending: VecDeque<(Instant, Answer)> = VecDeque::new();
        let mut timing: Option<Instant> = None;
        loop {
            let until = pending.front().map(|p| p.0);
            let update = seat.next_update(until).await.map_err(|e| e.to_string())?;
            let Some(update) = update else {
                let now = Instant::now();
                while pending.front().is_some_and(|p| p.0 <= now) {
                    let Some((_, answer)) = pending.pop_front() else {
                        break;
                    };
                    match answer {
                        Answer::Act { action, timed } => {
                            c.actions.fetch_add(1, Relaxed);
                            if timed {
                                timing = Some(Instant::now());
                            }
                            seat.act(action).await.map_err(|e| format!("act: {e}"))?;
                        }
                        Answer::Ready => seat
                            .send(ClientMsg::Ready)
                            .await
                            .map_err(|e| format!("ready: {e}"))?,
                    }
                }
                continue;
            };
            let stale = |p: &(Instant, Answer)| matches!(p.1, Answer::Act { .. });
            match update {
                OnlineUpdate::Event { .. } => {
                    if let Some(at) = timing.take() {
                        let us = at.elapsed().as_micros().min(u128::from(u32::MAX)) as u32;
                        self.latencies.push(us);
                    }
                    // Every event moves the game on: an answer not yet sent is stale.
                    pending.retain(|p| !stale(p));
                }
                OnlineUpdate::Decision { decision, .. } => {
                    pending.retain(|p| !stale(p));
                    let view = seat.stream().view().ok_or("a decision without a view")?;
                    let action = self.bot.choose(view);
                    let timed = decision.kind == DecisionKind::Turn;
                    let at = Instant::now() + pause(self.rng, think);
                    pending.push_back((at, Answer::Act { action, timed }));
                    pending.make_contiguous().sort_by_key(|p| p.0);
                }
                OnlineUpdate::HandEnd { hand, fair, .. } => {
                    c.hands_played.fetch_add(1, Relaxed);
                    if let Err(e) = fair {
                        c.error(format!("hand {hand} failed its fairness check: {e}"));
                    }
                    pending.retain(|p| !stale(p));
                    self.bot.new_hand(self.rng.next_u64());
                    let at = Instant::now() + pause(self.rng, think);
                    pending.push_back((at, Answer::Ready));
                    pending.make_contiguous().sort_by_key(|p| p.0);
                }
                OnlineUpdate::AutoPlay { on: true } => {
                    c.auto_play.fetch_add(1, Relaxed);
                }
                OnlineUpdate::MatchEnd { .. } => return Ok(()),
                OnlineUpdate::Error { code, message } => {
                    c.error(format!("error frame {code:?}: {message}"));
                }
                OnlineUpdate::Disconnected { reason } => return Err(reason),
                // The load's presets do not ask 飘 (a table that did would stake 0 for it).
                OnlineUpdate::Joined { .. }
                | OnlineUpdate::Committed { .. }
                | OnlineUpdate::Players { .. }
                | OnlineUpdate::PiaoAsked { .. }
                | OnlineUpdate::Piao { .. }
                | OnlineUpdate::NextTable(_)
                | OnlineUpdate::AutoPlay { on: false } => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_have_their_own_loopback_addresses() {
        assert_eq!(address(0).to_string(), "127.0.0.2");
        assert_eq!(address(254).to_string(), "127.0.1.0");
        let all: std::collections::HashSet<IpAddr> = (0..20_000).map(address).collect();
        assert_eq!(all.len(), 20_000);
        assert!(all.iter().all(IpAddr::is_loopback));
    }

    #[test]
    fn pauses_stay_in_their_range() {
        let mut r = ChaCha8Rng::seed_from_u64(7);
        assert!((0..1000).all(|_| {
            let p = pause(&mut r, (3, 9)).as_millis();
            (3..=9).contains(&p)
        }));
        assert_eq!(pause(&mut r, (5, 5)), Duration::from_millis(5));
    }
}
