//! Sitting down at a table over `GET /v1/play`: the table named (here, on another node, or
//! taken over from a stopped one) or a new one, and a seat at it.

use tokio::sync::{mpsc, oneshot};
use tongcheng_core::protocol::ErrorCode;

use super::table::{Cmd, Joining, TableTask};
use super::{Online, moved};
use crate::auth::random_id;

/// Finds or makes the table and takes a seat at it for `account`'s `device`, whose
/// connection `conn` gets the table's frames on `out`.
#[allow(clippy::too_many_arguments)]
pub async fn join(
    online: &Online,
    account: i64,
    device: i64,
    conn: u64,
    out: mpsc::Sender<String>,
    table: Option<String>,
    people: Option<u8>,
    rules: Option<String>,
    after: Option<u64>,
) -> Result<(u8, mpsc::Sender<Cmd>), (ErrorCode, String)> {
    let config = &online.config;
    let asked = table.is_some();
    let id = table.unwrap_or_else(random_id);
    if asked && online.several_nodes() {
        let here = online
            .lobby
            .tables
            .lock()
            .map_err(|_| (ErrorCode::Internal, "lobby unavailable".to_string()))?
            .get(&id)
            .is_some_and(|tx| !tx.is_closed());
        let store = online.store.clone();
        let table = id.clone();
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
                    && (home.as_deref().is_some_and(|h| h != online.node.url())
                        || after.is_some()) =>
            {
                // Runs elsewhere, or ran on a node that stopped (with NATS it is taken over
                // here when its match had begun).
                let there = match home {
                    Some(url) if url != online.node.url() && online.cluster.get().is_none() => {
                        moved::Whereabouts::There(url)
                    }
                    None if online.cluster.get().is_none() => moved::Whereabouts::Here,
                    home => moved::find_or_take(online, &id, home).await,
                };
                match there {
                    moved::Whereabouts::Here => {}
                    moved::Whereabouts::There(url) => return Err((ErrorCode::WrongNode, url)),
                    moved::Whereabouts::Gone(m) => return Err(moved::gone(m)),
                }
            }
            (_, true) => {
                let tx = online
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
        let mut tables = online
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
                if tables.len() >= config.max_tables {
                    return Err((
                        ErrorCode::TableFull,
                        "the server has no room for a table".into(),
                    ));
                }
                let rules = online.rules_for(rules)?;
                let task = |rx| {
                    TableTask::new(
                        id.clone(),
                        config.clone(),
                        rules,
                        people.unwrap_or(1),
                        online.store.clone(),
                        rx,
                    )
                };
                online.spawn_table(&mut tables, &id, task)
            }
        }
    };
    // A name the store cannot give now is no reason to refuse the seat.
    let name = online
        .display_name(account)
        .await
        .unwrap_or_else(|_| format!("player {account}"));
    let (reply, answer) = oneshot::channel();
    let joining = Joining {
        account,
        device,
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
