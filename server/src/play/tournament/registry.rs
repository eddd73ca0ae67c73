//! The tournaments a node runs, and the one way to find any tournament: the one this node
//! runs, else as the store keeps it (another node runs it, or it is over).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tongcheng_api::tournament::{TournamentInfo, TournamentStatus};

use super::super::{Online, lock};
use super::{Tournament, elsewhere, gone, kept, runner};
use crate::blocking::blocking;
use crate::error::ApiError;

/// The tournaments this node runs.
#[derive(Default)]
pub struct Registry {
    map: Mutex<HashMap<String, Arc<Tournament>>>,
    /// Finished and cancelled tournaments read back from the store: they no longer change.
    over: Mutex<HashMap<String, Arc<Tournament>>>,
    /// Tournaments other nodes run that entrants here wait on.
    pub(super) watches: elsewhere::Watches,
}

impl Registry {
    /// A tournament this node runs.
    pub(super) fn get(&self, id: &str) -> Result<Arc<Tournament>, ApiError> {
        lock(&self.map)?.get(id).cloned().ok_or_else(gone)
    }

    pub(super) fn runs(&self, id: &str) -> bool {
        lock(&self.map).is_ok_and(|m| m.contains_key(id))
    }

    /// Starts running `t` here (made here, or taken over).
    pub(super) fn run(
        &self,
        online: &Arc<Online>,
        t: Arc<Tournament>,
        from: kept::Resume,
    ) -> Result<(), ApiError> {
        lock(&self.map)?.insert(t.id.clone(), t.clone());
        tokio::spawn(runner::run(online.clone(), t, from));
        Ok(())
    }

    /// Stops holding `id` (its runner ended, or another node took it over).
    pub(super) fn forget(&self, id: &str) {
        if let Ok(mut m) = lock(&self.map) {
            m.remove(id);
        }
    }

    /// A tournament as this node runs it, or as the store keeps it (another node runs it, or
    /// it is over).
    pub(super) async fn find(
        &self,
        online: &Online,
        id: &str,
    ) -> Result<Arc<Tournament>, ApiError> {
        if let Ok(t) = self.get(id) {
            return Ok(t);
        }
        if let Some(t) = lock(&self.over)?.get(id) {
            return Ok(t.clone());
        }
        let t = kept::view(online, id).await?;
        if matches!(
            t.status_now(),
            Some(TournamentStatus::Finished | TournamentStatus::Cancelled)
        ) {
            lock(&self.over)?.insert(id.to_string(), t.clone());
        }
        Ok(t)
    }

    /// Open tournaments, and the 亲友赛 of `code` when given (only by its code), wherever
    /// they run.
    pub async fn list(
        &self,
        online: &Online,
        code: Option<&str>,
        account: i64,
    ) -> Result<Vec<TournamentInfo>, ApiError> {
        let (store, asked) = (online.store.clone(), code.map(str::to_string));
        let ids = blocking(move || Ok(store.open_tournaments(asked.as_deref())?)).await?;
        let mut out = Vec::new();
        for id in ids {
            let Ok(t) = self.find(online, &id).await else {
                continue;
            };
            if let Ok(i) = t.info(account)
                && (code.is_some()
                    || matches!(
                        i.status,
                        TournamentStatus::SignUp | TournamentStatus::Running
                    ))
            {
                out.push(i);
            }
        }
        out.sort_by(|a, b| a.starts_at.cmp(&b.starts_at).then(a.id.cmp(&b.id)));
        Ok(out)
    }

    pub async fn show(
        &self,
        online: &Online,
        id: &str,
        account: i64,
    ) -> Result<TournamentInfo, ApiError> {
        self.find(online, id).await?.info(account)
    }
}
