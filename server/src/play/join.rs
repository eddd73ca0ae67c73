//! A connection's join: finds the table (here, on another node, or taken over from a node
//! that stopped) or makes it, and takes a seat at it.

use tokio::sync::{mpsc, oneshot};
use tongcheng_core::protocol::ErrorCode;

use super::table::{Cmd, Joining, TableTask};
use super::{moved, rules_for, spawn_table, table_id};
use crate::app::AppState;
use crate::routes::Authed;

/// Finds or makes the table and takes a seat at it.
#[allow(clippy::too_many_arguments)]
pub(super) async fn join(
    state: &AppState,
    auth: &Authed,
    conn: u64,
    out: mpsc::Sender<String>,
    table: Option<String>,
    people: Option<u8>,
    rules: Option<String>,
    after: Option<u64>,
) -> Result<(u8, mpsc::Sender<Cmd>), (ErrorCode, String)> {
    let online = &state.config.online;
    let asked = table.is_some();
    let id = table.unwrap_or_else(table_id);
    if asked && state.several_nodes() {
        let here = state
            .lobby
            .tables
            .lock()
            .map_err(|_| (ErrorCode::Internal, "lobby unavailable".to_string()))?
            .get(&id)
            .is_some_and(|tx| !tx.is_closed());
        let store = state.store.clone();
        let (table, account) = (id.clone(), auth.session.account_id);
        let found = tokio::task::spawn_blocking(move || {
            if here {
                // A room admits on any node: a player admitted elsewhere is let in here.
                let room = store.room_of_table(&table)?;
                Ok((
                    None,
                    room.is_some_and(|r| r.members.iter().any(|m| m.account_id == account)),
                ))
            } else {
                Ok((store.table_home(&table)?, false))
            }
        })
        .await
        .map_err(|_| (ErrorCode::Internal, "a task failed".to_string()))?
        .map_err(|e: crate::store::StoreError| (ErrorCode::Internal, e.to_string()))?;
        match found {
            (home, _)
                if !here
                    && (home.as_deref().is_some_and(|h| h != state.node.url())
                        || after.is_some()) =>
            {
                // Runs elsewhere, or ran on a node that stopped (with NATS it is taken over
                // here when its match had begun).
                let there = match home {
                    Some(url) if url != state.node.url() && state.cluster.get().is_none() => {
                        moved::Whereabouts::There(url)
                    }
                    None if state.cluster.get().is_none() => moved::Whereabouts::Here,
                    home => moved::find_or_take(state, &id, home).await,
                };
                match there {
                    moved::Whereabouts::Here => {}
                    moved::Whereabouts::There(url) => return Err((ErrorCode::WrongNode, url)),
                    moved::Whereabouts::Gone(m) => return Err(moved::gone(m)),
                }
            }
            (_, true) => {
                let tx = state
                    .lobby
                    .tables
                    .lock()
                    .map_err(|_| (ErrorCode::Internal, "lobby unavailable".to_string()))?
                    .get(&id)
                    .cloned();
                if let Some(tx) = tx {
                    let _ = tx.send(Cmd::Admit { account }).await;
                }
            }
            _ => {}
        }
    }
    let tx = {
        let mut tables = state
            .lobby
            .tables
            .lock()
            .map_err(|_| (ErrorCode::Internal, "lobby unavailable".to_string()))?;
        match tables.get(&id) {
            Some(tx) if !tx.is_closed() => tx.clone(),
            // Coming back to a table that is gone: its match ended long ago.
            _ if after.is_some() => {
                return Err((ErrorCode::MatchOver, "that table's match is over".into()));
            }
            _ => {
                if tables.len() >= online.max_tables {
                    return Err((
                        ErrorCode::TableFull,
                        "the server has no room for a table".into(),
                    ));
                }
                let rules = rules_for(state, rules)?;
                let task = |rx| {
                    TableTask::new(
                        id.clone(),
                        online.clone(),
                        rules,
                        people.unwrap_or(1),
                        state.store.clone(),
                        rx,
                    )
                };
                spawn_table(state, &mut tables, &id, task)
            }
        }
    };
    let store = state.store.clone();
    let account_id = auth.session.account_id;
    let name = tokio::task::spawn_blocking(move || store.account(account_id))
        .await
        .ok()
        .and_then(Result::ok)
        .flatten()
        .map_or_else(|| format!("player {account_id}"), |a| a.display_name);
    let (reply, answer) = oneshot::channel();
    let joining = Joining {
        account: account_id,
        device: auth.session.device_id,
        name,
        after,
        conn,
        out,
    };
    tx.send(Cmd::Join(joining, reply))
        .await
        .map_err(|_| (ErrorCode::MatchOver, "the table is gone".to_string()))?;
    let player = answer
        .await
        .map_err(|_| (ErrorCode::MatchOver, "the table is gone".to_string()))??;
    Ok((player, tx))
}
