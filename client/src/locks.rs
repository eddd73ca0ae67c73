//! Locks that outlive a panic, written once for the client and the crates on it (the phone
//! library, the desktop command).
//!
//! A thread that panicked while holding a mutex poisons it; std then refuses every later
//! `lock`. The state behind these locks (an online table's updates, a queue wait's outcome,
//! the phone's history and session) is left whole by each holder, so the next caller takes
//! it as it is rather than failing too: one panic in a listener must not make the table or
//! the history unusable for the rest of the app's life.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// [`Mutex::lock`], taking the data of a poisoned mutex as it is.
pub trait LockExt<T> {
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T> LockExt<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// [`Condvar::wait_timeout`], the same way; the guard back (whether it timed out is for the
/// caller's loop to check against its own deadline).
pub trait CondvarExt {
    fn wait_at_most<'a, T>(&self, guard: MutexGuard<'a, T>, limit: Duration) -> MutexGuard<'a, T>;
}

impl CondvarExt for Condvar {
    fn wait_at_most<'a, T>(&self, guard: MutexGuard<'a, T>, limit: Duration) -> MutexGuard<'a, T> {
        self.wait_timeout(guard, limit)
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_poisoned_lock_still_gives_its_data() {
        let m = Arc::new(Mutex::new(1));
        let held = m.clone();
        let _ = std::thread::spawn(move || {
            let _g = held.lock().unwrap();
            panic!("poisons the lock");
        })
        .join();
        assert!(m.is_poisoned());
        *m.locked() += 1;
        assert_eq!(*m.locked(), 2);
        let cv = Condvar::new();
        assert_eq!(*cv.wait_at_most(m.locked(), Duration::from_millis(1)), 2);
    }
}
