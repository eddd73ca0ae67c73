//! Running blocking work (the store, verification) off the async threads.

use crate::error::ApiError;

/// Runs `f` on tokio's blocking pool.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("a task failed: {e}")))?
}
