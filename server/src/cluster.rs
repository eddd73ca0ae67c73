//! Several nodes on NATS: which nodes are alive, and each online table's checkpoint.
//!
//! - **Liveness** is core NATS request/reply: every node answers on a subject named after its
//!   URL with its *instance* (a random id per process). A node that died has no subscription,
//!   so NATS answers "no responders" at once; a slow node that does not answer in time counts
//!   as alive (never take a table from a node that may still run it). A node restarted at the
//!   same URL answers with another instance, so the tables its last life ran count as orphaned.
//! - **Checkpoints** live in a JetStream key-value bucket (file storage: durable across a NATS
//!   restart), one key per table: its match as a [`tongcheng_core::table::SavedTable`] of the
//!   finished hands and who sits where (see [`crate::play::moved`]). Writes are compare-and-set
//!   on the entry's revision: a node that took a table over writes first, and the node it
//!   took it from (alive after all, say after a network split) fails its next write and
//!   closes its copy instead of playing on beside the new owner.

use std::time::Duration;

use async_nats::jetstream::kv;
use bytes::Bytes;
use futures_util::StreamExt;

/// Why a checkpoint write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// Another node wrote the table's checkpoint since this node's last write: it owns the
    /// table now.
    #[error("another node took the table over")]
    Fenced,
    #[error("NATS: {0}")]
    Nats(String),
}

fn nats(e: impl std::fmt::Display) -> ClusterError {
    ClusterError::Nats(e.to_string())
}

/// This node's NATS connection and the bucket of table checkpoints.
pub struct Cluster {
    client: async_nats::Client,
    tables: kv::Store,
    prefix: String,
    /// This process's instance: liveness answers carry it.
    pub instance: String,
}

/// How long a liveness request waits for an answer before the node counts as alive but slow.
const ALIVE_TIMEOUT: Duration = Duration::from_secs(2);

impl Cluster {
    /// Connects to NATS at `url` and opens (or makes) the checkpoint bucket
    /// `{prefix}_tables`. The prefix keeps separate deployments (and tests) apart on one NATS.
    pub async fn connect(url: &str, prefix: &str) -> Result<Cluster, ClusterError> {
        if prefix.is_empty()
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(ClusterError::Nats(format!(
                "the NATS prefix '{prefix}' must be letters, digits, '-' or '_'"
            )));
        }
        let client = async_nats::ConnectOptions::new()
            .name("tongcheng-server")
            .connection_timeout(Duration::from_secs(5))
            .connect(url)
            .await
            .map_err(|e| ClusterError::Nats(format!("cannot connect to {url}: {e}")))?;
        let js = async_nats::jetstream::new(client.clone());
        let bucket = format!("{prefix}_tables");
        let tables = match js.get_key_value(&bucket).await {
            Ok(kv) => kv,
            Err(_) => {
                // The bucket's stream made directly, as the client's `create_key_value` would
                // (history 1, rollups, direct gets), because that call first asks for account
                // details in a form older NATS servers (2.9) do not send.
                use async_nats::jetstream::stream;
                let made = js
                    .create_stream(stream::Config {
                        name: format!("KV_{bucket}"),
                        description: Some("Tongcheng online tables: a checkpoint each".into()),
                        subjects: vec![format!("$KV.{bucket}.>")],
                        max_messages_per_subject: 1,
                        storage: stream::StorageType::File,
                        allow_rollup: true,
                        deny_delete: true,
                        allow_direct: true,
                        discard: stream::DiscardPolicy::New,
                        num_replicas: 1,
                        ..Default::default()
                    })
                    .await;
                // Two nodes starting at once: the other one made it.
                js.get_key_value(&bucket).await.map_err(|e| {
                    let why = made.err().map_or_else(|| e.to_string(), |m| m.to_string());
                    ClusterError::Nats(format!("cannot make the bucket {bucket}: {why}"))
                })?
            }
        };
        Ok(Cluster {
            client,
            tables,
            prefix: prefix.to_string(),
            instance: crate::auth::random_id(),
        })
    }

    fn node_subject(&self, node_url: &str) -> String {
        format!(
            "{}.node.{}",
            self.prefix,
            tongcheng_core::hex::hex(node_url.as_bytes())
        )
    }

    /// Answers liveness requests for this node (at `node_url`) until the connection ends.
    pub async fn answer_liveness(&self, node_url: &str) -> Result<(), ClusterError> {
        let mut sub = self
            .client
            .subscribe(self.node_subject(node_url))
            .await
            .map_err(nats)?;
        let client = self.client.clone();
        let me = Bytes::from(self.instance.clone());
        // Known to the server before this returns: a request sent after it is answered.
        self.client.flush().await.map_err(nats)?;
        tokio::spawn(async move {
            while let Some(m) = sub.next().await {
                if let Some(reply) = m.reply {
                    let _ = client.publish(reply, me.clone()).await;
                }
            }
        });
        Ok(())
    }

    /// Whether the node at `node_url` runs, as the process `instance` when one is given.
    /// Only a definite answer counts as dead: nobody subscribed (the process is gone), or
    /// another instance answering (it restarted and lost its tables).
    pub async fn alive(&self, node_url: &str, instance: Option<&str>) -> bool {
        let asked = self
            .client
            .request(self.node_subject(node_url), Bytes::new());
        match tokio::time::timeout(ALIVE_TIMEOUT, asked).await {
            Ok(Ok(m)) => instance.is_none_or(|i| m.payload.as_ref() == i.as_bytes()),
            Ok(Err(e)) => !matches!(e.kind(), async_nats::client::RequestErrorKind::NoResponders),
            Err(_) => true,
        }
    }

    /// Writes table `id`'s checkpoint: a new key when `revision` is `None`, else only over
    /// that revision ([`ClusterError::Fenced`] when someone wrote since). The new revision.
    pub async fn put_checkpoint(
        &self,
        id: &str,
        value: Vec<u8>,
        revision: Option<u64>,
    ) -> Result<u64, ClusterError> {
        let value = Bytes::from(value);
        match revision {
            None => self.tables.put(id, value).await.map_err(nats),
            Some(r) => self.tables.update(id, value, r).await.map_err(|e| {
                if e.kind() == kv::UpdateErrorKind::WrongLastRevision {
                    ClusterError::Fenced
                } else {
                    nats(e)
                }
            }),
        }
    }

    /// Table `id`'s checkpoint and its revision.
    pub async fn checkpoint(&self, id: &str) -> Result<Option<(Bytes, u64)>, ClusterError> {
        Ok(self
            .tables
            .entry(id)
            .await
            .map_err(nats)?
            .filter(|e| e.operation == kv::Operation::Put)
            .map(|e| (e.value, e.revision)))
    }

    /// Forgets table `id`'s checkpoint, if it is still at `revision` (its match is over).
    pub async fn drop_checkpoint(&self, id: &str, revision: u64) -> Result<(), ClusterError> {
        self.tables
            .purge_expect_revision(id, Some(revision))
            .await
            .map_err(nats)
    }

    /// Every table with a checkpoint.
    pub async fn checkpointed_tables(&self) -> Result<Vec<String>, ClusterError> {
        let mut keys = self.tables.keys().await.map_err(nats)?;
        let mut out = Vec::new();
        while let Some(k) = keys.next().await {
            out.push(k.map_err(nats)?);
        }
        Ok(out)
    }
}
