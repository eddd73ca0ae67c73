//! Matchmaking for the phone shells: the queue (a cancellable wait), private rooms by 6-digit
//! code, and the account's ratings. Mapping only: requests, checks and the long poll are
//! `tongcheng-client`'s. Calls block on the network: shells call them off the UI thread; a
//! queue wait is polled (`wait_for_table` with a short timeout) so the waiting screen can tick.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tongcheng_client::api::play::{Rating, RoomInfo, RoomSettings, Seated};
use tongcheng_client::{LockExt, QueueWait};

use crate::TongchengError;
use crate::online::OnlineClient;

/// Where the queue seated the player: sit down with `OnlineClient.play(table, people, null)`.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct SeatedModel {
    pub table: String,
    pub rules: String,
    pub ranked: bool,
    /// People seated, you included; bots take the other seats.
    pub people: u8,
    pub bots: u8,
}

impl From<Seated> for SeatedModel {
    fn from(s: Seated) -> SeatedModel {
        SeatedModel {
            table: s.table,
            rules: s.rules,
            ranked: s.ranked,
            people: s.people,
            bots: s.bots,
        }
    }
}

/// The account's rating under one rule set.
#[derive(Clone, Debug, PartialEq, uniffi::Record)]
pub struct RatingModel {
    pub rules: String,
    pub mu: f64,
    pub sigma: f64,
    /// `mu - 3 sigma`, what the tier comes from.
    pub conservative: f64,
    pub games: i64,
    /// Still in the first rated matches: no tier yet.
    pub provisional: bool,
    /// Rated matches the provisional period lasts (0: the server did not say).
    pub provisional_games: i64,
    /// "bronze" … "master"; none while provisional.
    pub tier: Option<String>,
}

impl From<Rating> for RatingModel {
    fn from(r: Rating) -> RatingModel {
        RatingModel {
            rules: r.rules,
            mu: r.mu,
            sigma: r.sigma,
            conservative: r.conservative,
            games: r.games,
            provisional: r.provisional,
            provisional_games: r.provisional_games,
            tier: r.tier.map(|t| t.to_string()),
        }
    }
}

/// What the owner of a private room picks. `None`: the rule set's own value.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct RoomSettingsModel {
    /// A preset name; the server's default when none.
    pub rules: Option<String>,
    /// Hands in the match (dealer turns).
    pub hands: Option<u8>,
    pub first_discard_secs: Option<u16>,
    pub discard_secs: Option<u16>,
    pub claim_secs: Option<u16>,
    /// People invited, the owner included (1–4).
    pub people: u8,
    /// "easy", "normal" or "hard" for each of the other `4 - people` seats.
    pub bots: Vec<String>,
}

/// Two admitted accounts that joined from one IP address (同IP提醒).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct SameIpModel {
    pub first: i64,
    pub second: i64,
}

/// A private room as its players see it.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct RoomModel {
    /// The 6-digit code friends join by.
    pub code: String,
    /// The table to sit down at (`OnlineClient.play(table, people, null)`).
    pub table: String,
    pub people: u8,
    pub admitted: u8,
    /// The names of the people in, owner first.
    pub players: Vec<String>,
    pub same_ip: Vec<SameIpModel>,
}

impl From<RoomInfo> for RoomModel {
    fn from(r: RoomInfo) -> RoomModel {
        RoomModel {
            code: r.code,
            table: r.table,
            people: r.people,
            admitted: r.admitted,
            players: r.players.into_iter().map(|p| p.name).collect(),
            same_ip: r
                .same_ip
                .into_iter()
                .map(|[first, second]| SameIpModel { first, second })
                .collect(),
        }
    }
}

/// A place in a matchmaking queue. `wait_for_table` until it ends; `cancel` to give it up. Closing it
/// (Kotlin `close()`) while waiting gives the place up too.
#[derive(uniffi::Object)]
pub struct QueueTicket {
    wait: QueueWait,
    /// The outcome once it came, kept so every later `wait_for_table` answers the same.
    ended: Mutex<Option<Result<SeatedModel, TongchengError>>>,
}

impl std::fmt::Debug for QueueTicket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.wait.fmt(f)
    }
}

#[uniffi::export]
impl QueueTicket {
    /// Waits up to `timeout_ms` for a table: the table once seated, `None` while still
    /// waiting. After `cancel`, a `Cancelled` error; a refusal of the server (no table in
    /// time, the account queued elsewhere) or a network failure as their errors.
    pub fn wait_for_table(&self, timeout_ms: u64) -> Result<Option<SeatedModel>, TongchengError> {
        let mut ended = self.ended.locked();
        if ended.is_none() {
            *ended = self
                .wait
                .wait(Duration::from_millis(timeout_ms))
                .map(|r| r.map(SeatedModel::from).map_err(TongchengError::from));
        }
        match &*ended {
            None => Ok(None),
            Some(r) => r.clone().map(Some),
        }
    }

    /// Gives the place up (the server takes the player out of the queue). True when the wait
    /// was under way; false when it had already ended (then `wait_for_table` has its outcome, which
    /// may be a table).
    pub fn cancel(&self) -> bool {
        self.wait.cancel()
    }

    /// Milliseconds since the player joined the queue, for the waiting screen.
    pub fn waited_ms(&self) -> u64 {
        u64::try_from(self.wait.waited().as_millis()).unwrap_or(u64::MAX)
    }
}

fn check_rules(rules: &Option<String>) -> Result<(), TongchengError> {
    match rules {
        Some(r) if r.is_empty() || r.len() > 64 => Err(TongchengError::InvalidInput {
            detail: format!(
                "'{}' is not a rule set name",
                r.chars().take(64).collect::<String>()
            ),
        }),
        _ => Ok(()),
    }
}

#[uniffi::export]
impl OnlineClient {
    /// Joins the queue of `rules` (a preset name; the server's default when none), ranked or
    /// casual. Returns at once; the ticket's `wait_for_table` says when a table is found (bots take the
    /// empty seats after the server's wait).
    pub fn queue(
        &self,
        rules: Option<String>,
        ranked: bool,
    ) -> Result<Arc<QueueTicket>, TongchengError> {
        check_rules(&rules)?;
        let wait = self.api().start_queue(rules.as_deref(), ranked)?;
        Ok(Arc::new(QueueTicket {
            wait,
            ended: Mutex::new(None),
        }))
    }

    /// The account's ratings, one per rule set it was rated in (none for a new account).
    pub fn ratings(&self) -> Result<Vec<RatingModel>, TongchengError> {
        Ok(self
            .api()
            .ratings()?
            .into_iter()
            .map(RatingModel::from)
            .collect())
    }

    /// Makes a private room (checked first: bad settings are `InvalidInput` and nothing is
    /// sent); its code is for the friends to join by.
    pub fn create_room(&self, settings: RoomSettingsModel) -> Result<RoomModel, TongchengError> {
        check_rules(&settings.rules)?;
        let s = RoomSettings {
            rules: settings.rules,
            hands: settings.hands,
            first_discard_secs: settings.first_discard_secs,
            discard_secs: settings.discard_secs,
            claim_secs: settings.claim_secs,
            people: settings.people,
            bots: settings.bots,
        };
        Ok(self.api().create_room(&s)?.into())
    }

    /// A room this account is admitted to, as it is now: who joined, same-IP pairs.
    pub fn room(&self, code: String) -> Result<RoomModel, TongchengError> {
        Ok(self.api().room(&code)?.into())
    }

    /// Joins a friend's room by its 6-digit code (anything else is `InvalidInput`, not
    /// sent). A code no room has is `NotFound`; a full room is `Server` ("room_full").
    pub fn join_room(&self, code: String) -> Result<RoomModel, TongchengError> {
        Ok(self.api().join_room(&code)?.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::HistoryStore;
    use crate::online::KeyVault;

    struct Vault;
    impl KeyVault for Vault {
        fn load_secret(&self) -> Option<Vec<u8>> {
            None
        }
        fn store_secret(&self, _: Vec<u8>) {}
    }

    fn settings(people: u8, bots: &[&str]) -> RoomSettingsModel {
        RoomSettingsModel {
            rules: None,
            hands: None,
            first_discard_secs: None,
            discard_secs: None,
            claim_secs: None,
            people,
            bots: bots.iter().map(|b| b.to_string()).collect(),
        }
    }

    #[test]
    fn bad_codes_and_settings_are_invalid_input_before_any_request() {
        let dir = std::env::temp_dir().join(format!("tongcheng-ffi-mm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = HistoryStore::open(dir.join("h.db").display().to_string()).unwrap();
        // Nobody listens on port 9: a request sent would be a network error instead.
        let c = OnlineClient::new("http://127.0.0.1:9".into(), Arc::new(Vault), store).unwrap();
        for code in ["12345", "1234567", "12a456", "../x/1"] {
            assert!(matches!(
                c.join_room(code.into()),
                Err(TongchengError::InvalidInput { .. })
            ));
            assert!(matches!(
                c.room(code.into()),
                Err(TongchengError::InvalidInput { .. })
            ));
        }
        for s in [
            settings(0, &[]),
            settings(5, &[]),
            settings(3, &["easy", "easy"]),
            settings(3, &["expert"]),
            RoomSettingsModel {
                rules: Some(String::new()),
                ..settings(4, &[])
            },
        ] {
            assert!(matches!(
                c.create_room(s),
                Err(TongchengError::InvalidInput { .. })
            ));
        }
        assert!(matches!(
            c.queue(Some(String::new()), false),
            Err(TongchengError::InvalidInput { .. })
        ));
        // A well-formed request does go out (and finds nobody).
        assert!(matches!(
            c.join_room("123456".into()),
            Err(TongchengError::Network { .. })
        ));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn the_servers_refusals_keep_their_stable_code() {
        use tongcheng_client::ClientError;
        let refused = |status: u16, code: &str| {
            TongchengError::from(ClientError::Server {
                status,
                code: code.into(),
                message: "in words".into(),
            })
        };
        let e = refused(503, "queue_timeout");
        assert!(
            matches!(&e, TongchengError::Server { code: Some(c), detail }
                if c == "queue_timeout" && detail.contains("in words")),
            "{e:?}"
        );
        assert!(matches!(
            refused(404, "not_found"),
            TongchengError::NotFound { code: Some(c), .. } if c == "not_found"
        ));
        assert!(matches!(
            refused(401, "unauthorized"),
            TongchengError::NotLoggedIn { code: Some(c), .. } if c == "unauthorized"
        ));
        let odd = TongchengError::from(ClientError::Protocol("not JSON".into()));
        assert!(matches!(odd, TongchengError::Server { code: None, .. }));
    }
}
