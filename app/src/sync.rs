//! 同步 on 我的牌局: the kept hands uploaded to the server (and those played on the player's
//! other devices brought down), what is still waiting, and each hand the server refused with
//! its reason. Only a face whose history keeps an outbox offers it (the phones' database, the
//! browser's shelf) and says so with [`crate::App::enable_sync`]. The face performs
//! [`Effect::LoadSyncStatus`] and [`Effect::Sync`] (the browser through
//! [`crate::shelf_sync`]); the model decides when and says what happened.

use serde::{Deserialize, Serialize};

use crate::catalogue::{Lang, Text};
use crate::model::{Effect, Tap};
use crate::view::{Button, SyncView};

/// A hand the server refused, and why (its words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedHand {
    /// The record's content id (hex), or the history's row when the record does not read.
    pub record_id: String,
    pub reason: String,
}

/// What one sync did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncDone {
    /// Hands the server took as new.
    pub uploaded: u64,
    /// Hands it had already (an answer lost before).
    pub already: u64,
    /// Hands brought down from the player's other devices.
    pub pulled: u64,
}

#[derive(Debug, Default, PartialEq)]
enum State {
    #[default]
    Idle,
    Syncing,
    Done(SyncDone),
    /// The sync failed: why (the network, the server's words).
    Failed(String),
}

#[derive(Debug, Default)]
pub(crate) struct Sync {
    enabled: bool,
    state: State,
    /// Hands waiting to go up, once the face said.
    pending: Option<u64>,
    refused: Vec<RefusedHand>,
    /// A sync ran since the app opened (the first visit to 我的牌局 starts one by itself).
    ran: bool,
}

impl Sync {
    pub(crate) fn enable(&mut self) {
        self.enabled = true;
    }

    /// 我的牌局 opened: the status, and the first sync of this session when signed in.
    pub(crate) fn opened(&mut self, token: Option<&str>, fx: &mut Vec<Effect>) {
        if !self.enabled {
            return;
        }
        fx.push(Effect::LoadSyncStatus);
        if !self.ran {
            self.start(token, fx);
        }
    }

    /// 立即同步.
    pub(crate) fn sync_now(&mut self, token: Option<&str>, fx: &mut Vec<Effect>) {
        if self.enabled {
            self.start(token, fx);
        }
    }

    fn start(&mut self, token: Option<&str>, fx: &mut Vec<Effect>) {
        let Some(token) = token else {
            return;
        };
        if self.state == State::Syncing {
            return;
        }
        self.ran = true;
        self.state = State::Syncing;
        fx.push(Effect::Sync {
            token: token.to_string(),
        });
    }

    /// The face's answer to [`Effect::LoadSyncStatus`].
    pub(crate) fn status(&mut self, pending: u64, refused: Vec<RefusedHand>) {
        self.pending = Some(pending);
        self.refused = refused;
    }

    /// The face's answer to [`Effect::Sync`]: the status again, and (hands may have come
    /// down) true when the list and statistics should be read again.
    pub(crate) fn synced(
        &mut self,
        done: Option<SyncDone>,
        error: Option<String>,
        fx: &mut Vec<Effect>,
    ) -> bool {
        if self.state != State::Syncing {
            return false;
        }
        self.state = match (done, error) {
            (Some(d), _) => State::Done(d),
            (None, e) => State::Failed(e.unwrap_or_default()),
        };
        fx.push(Effect::LoadSyncStatus);
        matches!(self.state, State::Done(_))
    }

    pub(crate) fn view(&self, signed_in: bool, lang: Lang) -> Option<SyncView> {
        if !self.enabled {
            return None;
        }
        let zh = lang == Lang::ZhCn;
        let status = match (&self.state, signed_in) {
            (State::Syncing, _) => Text::Syncing.get(lang).to_string(),
            (State::Failed(why), _) if why.is_empty() => Text::SyncFailed.get(lang).to_string(),
            (State::Failed(why), _) => {
                let colon = if zh { "：" } else { ": " };
                format!("{}{colon}{why}", Text::SyncFailed.get(lang))
            }
            (State::Done(d), _) if zh => format!(
                "已同步：上传 {} 局，取回 {} 局",
                d.uploaded.saturating_add(d.already),
                d.pulled
            ),
            (State::Done(d), _) => {
                format!(
                    "Synced: {} up, {} down",
                    d.uploaded.saturating_add(d.already),
                    d.pulled
                )
            }
            (State::Idle, false) => Text::SyncNeedsLogin.get(lang).to_string(),
            (State::Idle, true) => String::new(),
        };
        let waiting = match (self.pending, zh) {
            (None, _) => None,
            (Some(0), _) => Some(Text::AllUploaded.get(lang).to_string()),
            (Some(n), true) => Some(format!("{n} 局等待上传")),
            (Some(n), false) => Some(format!("{n} hands waiting to go up")),
        };
        Some(SyncView {
            title: Text::Sync.get(lang).into(),
            status: [Some(status), waiting]
                .into_iter()
                .flatten()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" · "),
            refused: self
                .refused
                .iter()
                .map(|r| {
                    let id: String = r.record_id.chars().take(8).collect();
                    format!("{} {id}：{}", Text::Refused.get(lang), r.reason)
                })
                .collect(),
            sync_now: Button::new(
                Text::SyncNow.get(lang),
                signed_in && self.state != State::Syncing,
                Tap::SyncNow,
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sync_starts_once_by_itself_says_what_it_did_and_lists_the_refused() {
        let mut s = Sync::default();
        let mut fx = Vec::new();
        s.opened(Some("t"), &mut fx);
        assert!(fx.is_empty(), "off until the face says it can");
        assert!(s.view(true, Lang::ZhCn).is_none());
        s.enable();
        s.opened(None, &mut fx);
        assert_eq!(fx, [Effect::LoadSyncStatus], "signed out: the status only");
        let v = s.view(false, Lang::ZhCn).unwrap();
        assert!(!v.sync_now.enabled);
        assert_eq!(v.status, "登录后才能同步");
        fx.clear();
        s.opened(Some("t"), &mut fx);
        assert_eq!(
            fx,
            [Effect::LoadSyncStatus, Effect::Sync { token: "t".into() }]
        );
        assert!(!s.view(true, Lang::ZhCn).unwrap().sync_now.enabled);
        fx.clear();
        s.sync_now(Some("t"), &mut fx);
        assert!(fx.is_empty(), "one sync at a time");
        let done = SyncDone {
            uploaded: 2,
            already: 1,
            pulled: 4,
        };
        assert!(s.synced(Some(done), None, &mut fx));
        assert_eq!(fx, [Effect::LoadSyncStatus]);
        s.status(
            1,
            vec![RefusedHand {
                record_id: "abcdef0123456789".into(),
                reason: "it does not verify".into(),
            }],
        );
        let v = s.view(true, Lang::ZhCn).unwrap();
        assert_eq!(v.status, "已同步：上传 3 局，取回 4 局 · 1 局等待上传");
        assert_eq!(v.refused, ["被拒绝 abcdef01：it does not verify"]);
        assert!(v.sync_now.enabled);
        // Not opened again by itself; a failure says why.
        fx.clear();
        s.opened(Some("t"), &mut fx);
        assert_eq!(fx, [Effect::LoadSyncStatus]);
        s.sync_now(Some("t"), &mut fx);
        assert!(!s.synced(None, Some("network down".into()), &mut fx));
        let v = s.view(true, Lang::En).unwrap();
        assert!(
            v.status.starts_with("Sync failed: network down"),
            "{}",
            v.status
        );
        // An answer nobody asked for changes nothing.
        assert!(!s.synced(Some(SyncDone::default()), None, &mut fx));
    }
}
