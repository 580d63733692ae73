//! One async lock per key, made on first use and dropped with its last
//! holder or waiter: the node's room takeovers and tournament game
//! creations are serialised per room, not node-wide (one node-wide lock
//! made an arena's 5,000 room creations, each a few Redis round trips,
//! one after another).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// The locks, by key. Holds only the keys someone holds or waits for.
#[derive(Debug, Default)]
pub struct KeyedLocks {
    map: Mutex<HashMap<String, Arc<AsyncMutex<()>>>>,
}

/// A key's lock, held until dropped.
#[derive(Debug)]
pub struct KeyedGuard<'a> {
    // Declared first: released before the ticket looks at the map.
    _guard: OwnedMutexGuard<()>,
    _ticket: Ticket<'a>,
}

/// A holder's or waiter's share of a key's lock: the last one out removes
/// the key (a waiter cancelled while it waits too).
#[derive(Debug)]
struct Ticket<'a> {
    locks: &'a KeyedLocks,
    key: String,
    lock: Option<Arc<AsyncMutex<()>>>,
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        let mut map = self.locks.map();
        drop(self.lock.take());
        if map
            .get(&self.key)
            .is_some_and(|l| Arc::strong_count(l) == 1)
        {
            map.remove(&self.key);
        }
    }
}

impl KeyedLocks {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<AsyncMutex<()>>>> {
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for `key`'s lock; other keys are not held up.
    pub async fn lock(&self, key: &str) -> KeyedGuard<'_> {
        let lock = self.map().entry(key.to_string()).or_default().clone();
        let ticket = Ticket {
            locks: self,
            key: key.to_string(),
            lock: Some(lock.clone()),
        };
        let guard = lock.lock_owned().await;
        KeyedGuard {
            _guard: guard,
            _ticket: ticket,
        }
    }

    /// Keys held or waited for now.
    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// Whether no key is held or waited for.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[actix_rt::test]
    async fn one_key_waits_for_its_holder_and_other_keys_do_not() {
        let locks = Arc::new(KeyedLocks::default());
        let a = locks.lock("a").await;
        // Another key is free at once.
        let b = tokio::time::timeout(Duration::from_millis(100), locks.lock("b")).await;
        assert!(b.is_ok());
        drop(b);
        // The same key waits until its holder lets go.
        let l2 = locks.clone();
        let waiter = actix_rt::spawn(async move {
            let _g = l2.lock("a").await;
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiter.is_finished());
        drop(a);
        tokio::time::timeout(Duration::from_secs(1), waiter)
            .await
            .expect("the waiter gets the lock")
            .unwrap();
        assert!(locks.is_empty(), "the last one out removes the key");
    }

    #[actix_rt::test]
    async fn a_waiter_that_gives_up_leaves_nothing_behind() {
        let locks = KeyedLocks::default();
        let held = locks.lock("a").await;
        let gave_up = tokio::time::timeout(Duration::from_millis(20), locks.lock("a")).await;
        assert!(gave_up.is_err());
        assert_eq!(locks.len(), 1);
        drop(held);
        assert!(locks.is_empty());
    }
}
