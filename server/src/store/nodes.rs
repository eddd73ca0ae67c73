//! What several nodes share, in the store: private rooms and the one matchmaking queue.
//! Each function runs on a connection the caller holds (in a transaction where it says so).

use super::db::{Db, args};
use super::{
    QueueClaim, QueueEntry, QueueState, Result, RoomJoin, RoomMember, StoreError, StoredRoom,
};

/// A room and its members, by `column` (`code` or `table_id`).
pub(super) fn load_room(c: &mut impl Db, column: &str, key: &str) -> Result<Option<StoredRoom>> {
    let Some((code, table_id, node_url, people)) = c.row::<(String, String, String, u8)>(
        &format!("SELECT code, table_id, node_url, people FROM rooms WHERE {column} = $1"),
        args![key],
    )?
    else {
        return Ok(None);
    };
    let members = c
        .rows(
            "SELECT account_id, ip, name FROM room_players WHERE code = $1 ORDER BY pos",
            args![&code],
        )?
        .into_iter()
        .map(|(account_id, ip, name)| RoomMember {
            account_id,
            ip,
            name,
        })
        .collect();
    Ok(Some(StoredRoom {
        code,
        table_id,
        node_url,
        people,
        members,
    }))
}

/// Admits `member` to room `code` at position `pos` (0: the owner).
pub(super) fn add_member(c: &mut impl Db, code: &str, pos: i64, member: &RoomMember) -> Result<()> {
    c.execute(
        "INSERT INTO room_players (code, pos, account_id, ip, name) VALUES ($1, $2, $3, $4, $5)",
        args![
            code,
            pos,
            member.account_id,
            member.ip.as_deref(),
            &member.name
        ],
    )?;
    Ok(())
}

/// In a transaction: admits `member` while the room has a free invitation.
pub(super) fn join_room(c: &mut impl Db, code: &str, member: &RoomMember) -> Result<RoomJoin> {
    // The room's row is the lock: joins through any node are serialized here.
    let locked: Option<(i64,)> = c.row(
        "SELECT 1 FROM rooms WHERE code = $1 FOR UPDATE",
        args![code],
    )?;
    if locked.is_none() {
        return Ok(RoomJoin::NoRoom);
    }
    let Some(mut room) = load_room(c, "code", code)? else {
        return Ok(RoomJoin::NoRoom);
    };
    if !room
        .members
        .iter()
        .any(|m| m.account_id == member.account_id)
    {
        if room.members.len() >= usize::from(room.people) {
            return Ok(RoomJoin::Full);
        }
        add_member(c, code, room.members.len() as i64, member)?;
        room.members.push(member.clone());
    }
    Ok(RoomJoin::Admitted(room))
}

/// The account's row, waiting, replacing any it had.
pub(super) fn queue_put(c: &mut impl Db, e: &QueueEntry, now_ms: i64) -> Result<()> {
    c.execute(
        "INSERT INTO queue (account_id, ticket, rules, ranked, rating, devices, ip,
             since_ms, seen_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (account_id) DO UPDATE SET
            ticket = excluded.ticket, rules = excluded.rules, ranked = excluded.ranked,
            rating = excluded.rating, devices = excluded.devices, ip = excluded.ip,
            since_ms = excluded.since_ms, seen_ms = excluded.seen_ms,
            table_id = NULL, node_url = NULL, people = NULL",
        args![
            e.account_id,
            &e.ticket,
            &e.rules,
            e.ranked,
            e.rating,
            &super::join_devices(&e.devices),
            e.ip.as_deref(),
            e.since_ms,
            now_ms
        ],
    )?;
    Ok(())
}

/// The account's row goes, whatever its state.
fn drop_queued(c: &mut impl Db, account_id: i64) -> Result<()> {
    c.execute("DELETE FROM queue WHERE account_id = $1", args![account_id])?;
    Ok(())
}

/// In a transaction: the waiting request's look at its row.
pub(super) fn queue_poll(
    c: &mut impl Db,
    account_id: i64,
    ticket: &str,
    now_ms: i64,
) -> Result<QueueState> {
    // The ticket, and the table the row was seated at (all three or none).
    type Row = (String, Option<String>, Option<String>, Option<u8>);
    let row: Option<Row> = c.row(
        "SELECT ticket, table_id, node_url, people FROM queue WHERE account_id = $1
         FOR UPDATE",
        args![account_id],
    )?;
    let Some((theirs, table_id, node_url, people)) = row else {
        return Ok(QueueState::Gone);
    };
    if theirs != ticket {
        return Ok(QueueState::Replaced);
    }
    Ok(match (table_id, node_url, people) {
        (Some(table_id), Some(node_url), Some(people)) => {
            drop_queued(c, account_id)?;
            QueueState::Seated {
                table_id,
                node_url,
                people,
            }
        }
        _ => {
            c.execute(
                "UPDATE queue SET seen_ms = $2 WHERE account_id = $1",
                args![account_id, now_ms],
            )?;
            QueueState::Waiting
        }
    })
}

/// In a transaction: one matcher run (see [`super::Store::queue_claim`]).
pub(super) fn queue_claim(
    c: &mut impl Db,
    rules: &str,
    ranked: bool,
    stale_before_ms: i64,
    choose: &mut dyn FnMut(Vec<QueueEntry>) -> Vec<QueueClaim>,
) -> Result<Vec<QueueClaim>> {
    type Row = (
        i64,
        String,
        String,
        bool,
        f64,
        String,
        Option<String>,
        i64,
        i64,
    );
    // Rows another node's matcher holds are skipped, not waited for: each run seats from
    // what it alone holds, and both commit without ever sharing a player.
    let rows: Vec<Row> = c.rows(
        "SELECT account_id, ticket, rules, ranked, rating, devices, ip, since_ms, seen_ms
         FROM queue WHERE rules = $1 AND ranked = $2 AND table_id IS NULL
         ORDER BY since_ms FOR UPDATE SKIP LOCKED",
        args![rules, ranked],
    )?;
    let mut waiting = Vec::with_capacity(rows.len());
    for (account_id, ticket, rules, ranked, rating, devices, ip, since_ms, seen_ms) in rows {
        // Not seen since `stale_before_ms`: its request is gone.
        if seen_ms < stale_before_ms {
            drop_queued(c, account_id)?;
            continue;
        }
        waiting.push(QueueEntry {
            account_id,
            ticket,
            rules,
            ranked,
            rating,
            devices: super::parse_devices(&devices)?,
            ip,
            since_ms,
        });
    }
    if waiting.is_empty() {
        return Ok(Vec::new());
    }
    let held: Vec<i64> = waiting.iter().map(|e| e.account_id).collect();
    let claims = choose(waiting);
    for claim in &claims {
        let people = claim.accounts.len() as i64;
        for &a in &claim.accounts {
            if !held.contains(&a) {
                return Err(StoreError::Conflict(format!(
                    "account {a} was not held by this matcher run"
                )));
            }
            c.execute(
                "UPDATE queue SET table_id = $2, node_url = $3, people = $4
                 WHERE account_id = $1",
                args![a, &claim.table_id, &claim.node_url, people],
            )?;
        }
    }
    Ok(claims)
}
