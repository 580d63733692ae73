//! The node-wide limit on bot and hint searches running at once.
//!
//! A bot's move and a hint's rollouts are CPU-bound work run off the
//! actors, in `spawn_blocking`, whose pool has hundreds of threads: with no
//! limit, a few players asking for hints (~0.45 s of CPU each at 64
//! rollouts) could keep every core busy and delay every room's bots and
//! sockets. [`Searches`] lets at most `bots.max_searches` of them run at
//! once (default: one per core); the others wait their turn, first come
//! first served. A search holds its permit until it has finished, even
//! when the room stopped waiting for it (a cancelled hint), so the limit
//! counts what the CPUs actually run; a hint cancelled while it waits is
//! never run.

use std::sync::Arc;

use tokio::sync::Semaphore;

/// A counting limit on searches (cheap to clone; the clones share it).
#[derive(Debug, Clone)]
pub struct Searches {
    permits: Arc<Semaphore>,
    limit: usize,
}

impl Searches {
    /// At most `limit` searches at once; 0 means one per CPU core.
    pub fn new(limit: usize) -> Searches {
        let limit = if limit == 0 {
            std::thread::available_parallelism().map_or(1, usize::from)
        } else {
            limit
        };
        Searches {
            permits: Arc::new(Semaphore::new(limit)),
            limit,
        }
    }

    /// How many may run at once.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many could start now.
    pub fn available(&self) -> usize {
        self.permits.available_permits()
    }

    /// Runs `f` on the blocking pool once a permit is free; `None` if it
    /// panicked. Dropping the future before it starts means it never runs.
    pub async fn run<R, F>(&self, f: F) -> Option<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let permit = self.permits.clone().acquire_owned().await.ok()?;
        tokio::task::spawn_blocking(move || {
            let _held = permit;
            f()
        })
        .await
        .ok()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[actix_rt::test]
    async fn no_more_than_the_limit_run_at_once_and_a_dropped_one_never_runs() {
        let s = Searches::new(2);
        assert_eq!(s.limit(), 2);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let jobs: Vec<_> = (0..6)
            .map(|_| {
                let (s, running, most) = (s.clone(), running.clone(), most.clone());
                async move {
                    s.run(move || {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(30));
                        running.fetch_sub(1, Ordering::SeqCst);
                    })
                    .await
                }
            })
            .collect();
        let done = futures_util::future::join_all(jobs).await;
        assert!(done.iter().all(Option::is_some));
        assert_eq!(most.load(Ordering::SeqCst), 2);
        assert_eq!(s.available(), 2);

        // Both permits taken: a third search waits; dropped, it never runs.
        let ran = Arc::new(AtomicUsize::new(0));
        let hold = |ms| {
            let s = s.clone();
            async move {
                s.run(move || std::thread::sleep(Duration::from_millis(ms)))
                    .await
            }
        };
        let (a, b) = (actix_rt::spawn(hold(200)), actix_rt::spawn(hold(200)));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(s.available(), 0);
        let r = ran.clone();
        let waiting = actix_rt::spawn({
            let s = s.clone();
            async move { s.run(move || r.fetch_add(1, Ordering::SeqCst)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        waiting.abort();
        let _ = (a.await, b.await);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(ran.load(Ordering::SeqCst), 0);
        assert_eq!(s.available(), 2);
        assert!(Searches::new(0).limit() >= 1);
    }
}
