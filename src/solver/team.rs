//! A team of threads that stays together for a whole frame, for the colored and Jacobi solvers.
//!
//! The colored solver projects the blocks of a color in parallel, then the next color: on the
//! workload W that is 400 colors a frame, each a few tens of µs of work. As a rayon parallel
//! iterator every color forked and joined the pool; a team instead keeps its members spinning
//! between colors, so a color starts and ends in well under a microsecond.
//!
//! The leader (the thread that made the team) publishes one job at a time: items picked by index
//! and a closure. Every member claims items one by one, first those it owns (the `k`-th item of a
//! job belongs to member `k mod n`, so a member works the same blocks in every pass and keeps
//! their data in its cache), then any left over, and the leader returns when every item is done.
//! The leader never waits for a member to join, only for claimed items to finish: a team whose
//! other threads are busy elsewhere, or a pool of one thread, is the leader working alone. Which
//! member ran an item never changes the result, since the items of a job are independent.
//!
//! The stages between the projections that treat every particle on its own (forces, prediction,
//! velocities) use the same team through [`Team::for_each_chunk`], which cuts their arrays into
//! chunks, one item each.
//!
//! One job at a time: the team has one job cell, so two jobs published at once (an item that
//! calls [`Team::for_each_at`] on its own team, or two threads sharing `&Team`, say the halves of
//! a `rayon::join` inside [`Team::scope`]) would overwrite each other's closure while members run
//! it. A publisher therefore first takes the team's `publishing` flag with one atomic swap, and
//! releases it only once every item of its job is done; a second publisher finds the flag taken
//! and panics before it touches the job. The flag is held whenever any item runs, so the check
//! covers the leader, the members and any other thread alike, at the cost of one swap and one
//! store per job.

use super::schedule::MAX_BLOCKS;
use crossbeam_utils::Backoff;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// A published job's closure, type-erased: its address and the function that calls it on an
/// item.
#[derive(Clone, Copy)]
struct Job {
    data: *const (),
    call: unsafe fn(*const (), usize),
}

impl Job {
    /// Erases `f`, which must outlive every call of the job.
    fn of<F: Fn(usize)>(f: &F) -> Job {
        /// Calls the closure at `data` (an `F`) on item `k`.
        ///
        /// # Safety
        /// `data` points to a live `F`.
        unsafe fn call<F: Fn(usize)>(data: *const (), k: usize) {
            // SAFETY: forwarded from the caller.
            unsafe { (*data.cast::<F>())(k) }
        }
        Job {
            data: (f as *const F).cast(),
            call: call::<F>,
        }
    }
}

/// The leader and the free threads of the current rayon pool, working jobs of at most
/// [`MAX_BLOCKS`] items (see the module docs).
pub struct Team {
    /// Members, the leader included.
    members: usize,
    /// The current job: its epoch (counted from 1) in the high 32 bits, its item count in the low
    /// 32. Stored with release ordering after `job` and `done` are set.
    word: AtomicU64,
    /// The epoch in which each item was last claimed; an item of the current job is free while
    /// its entry is below the current epoch.
    claimed: [AtomicU32; MAX_BLOCKS],
    /// Items of the current job done.
    done: AtomicU32,
    /// The current job's closure: written only by the holder of `publishing`, while no item is
    /// claimed or running.
    job: UnsafeCell<Option<Job>>,
    /// Set while a job is being published or run (see the module docs): taken by a swap before
    /// `job` is written, cleared after every item of the job is done.
    publishing: AtomicBool,
    /// Set when the leader is finished with the team.
    stop: AtomicBool,
}

// SAFETY: `job` is written only by the one thread that holds `publishing` (taken by an atomic
// swap, so two threads, or a nested call, can never both hold it), before it publishes a job (a
// release store of `word`), and read by members only after claiming an item of that job (after an
// acquire load of `word` and a successful claim), while the publisher waits for that item and
// still holds `publishing`; every other field is atomic.
unsafe impl Sync for Team {}

/// A pointer that may cross threads: the items of a job, each claimed by one member.
struct Items<T>(*mut T);

// SAFETY: each item is handed to one member only (see `Team::for_each_at`), and `T: Send`.
unsafe impl<T: Send> Sync for Items<T> {}

impl<T> Items<T> {
    /// The pointer. Closures call this rather than reading the field, so that they capture the
    /// whole (`Sync`) wrapper instead of the bare pointer.
    fn get(&self) -> *mut T {
        self.0
    }
}

impl Team {
    fn new(members: usize) -> Self {
        Team {
            members,
            word: AtomicU64::new(0),
            claimed: Default::default(),
            done: AtomicU32::new(0),
            job: UnsafeCell::new(None),
            publishing: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        }
    }

    /// Runs `f` with a team of at most `threads` members: this thread and, when `threads` > 1,
    /// up to `threads − 1` other threads of the current rayon pool, which join as they become
    /// free and spin (then yield) between jobs until `f` returns.
    pub fn scope<R: Send>(threads: usize, f: impl FnOnce(&Team) -> R + Send) -> R {
        let members = threads.clamp(1, rayon::current_num_threads());
        let team = Team::new(members);
        if members == 1 {
            return f(&team);
        }
        rayon::scope(|s| {
            let team = &team;
            for member in 1..members {
                s.spawn(move |_| team.serve(member));
            }
            // Dropped after `f`, also when it panics, so that the members leave and the scope
            // ends.
            let _stop = Stop(team);
            f(team)
        })
    }

    /// Members of the team, the leader included.
    pub fn members(&self) -> usize {
        self.members
    }

    /// Calls `f(i, &mut items[i])` for every index `i` of `at`, spread over the team, and
    /// returns when all are done. Meant for the leader (the thread that runs the closure of
    /// [`Team::scope`]); a call while another job of the team runs panics (see the module docs).
    ///
    /// # Panics
    /// If `at` is longer than [`MAX_BLOCKS`], not strictly increasing, or reaches past `items`;
    /// if called from an item of this team, or while another thread runs a job on it.
    pub fn for_each_at<T: Send>(
        &self,
        items: &mut [T],
        at: &[usize],
        f: impl Fn(usize, &mut T) + Sync,
    ) {
        assert!(at.len() <= MAX_BLOCKS, "a job of {} items", at.len());
        assert!(
            at.windows(2).all(|w| w[0] < w[1]) && at.last().is_none_or(|&i| i < items.len()),
            "job indices must be increasing and in range"
        );
        let base = Items(items.as_mut_ptr());
        let run = move |k: usize| {
            let i = at[k];
            // SAFETY: the indices are distinct and in range (asserted above), and each `k` is
            // claimed by one member only, so no two calls get the same item.
            f(i, unsafe { &mut *base.get().add(i) })
        };
        let n = at.len();
        assert!(
            !self.publishing.swap(true, Ordering::Acquire),
            "Team::for_each_at called while a job of the team runs (from one of its items, or \
             from a second thread): a team runs one job at a time, from its leader"
        );
        // Dropped last: releases `publishing` after `Finish` has waited for every item.
        let _published = Published(self);
        let epoch = (self.word.load(Ordering::Relaxed) >> 32) as u32 + 1;
        // SAFETY: this thread alone holds `publishing`, and every item of the previous job is
        // done (its `Finish` ran before its publisher released the flag), so no member reads
        // `job` now; members read it only after claiming an item of the job published next.
        unsafe { *self.job.get() = Some(Job::of(&run)) };
        self.done.store(0, Ordering::Relaxed);
        self.word
            .store(u64::from(epoch) << 32 | n as u64, Ordering::Release);
        // Waits for the members' items before `run` goes out of scope, also when an item of the
        // leader panics.
        let _finish = Finish {
            team: self,
            epoch,
            n,
        };
        self.work(0, epoch, n);
    }

    /// Cuts `parts` (slices of equal length, see [`Split`]) into at most [`MAX_BLOCKS`]
    /// consecutive chunks and calls `f(offset, chunk)` on each, spread over the team: for stages
    /// that treat every particle alone, whose result cannot depend on the cut. A team of one, or
    /// fewer than [`MIN_CHUNK_LEN`] elements, makes one call on the whole, on this thread.
    /// Meant for the leader; otherwise as [`Team::for_each_at`], which panics when called while
    /// another job of the team runs.
    pub fn for_each_chunk<S: Split>(&self, parts: S, f: impl Fn(usize, S) + Sync) {
        let len = parts.elements();
        if self.members == 1 || len < MIN_CHUNK_LEN {
            return f(0, parts);
        }
        // A multiple of 16 elements: whole 64-byte lines of 4-, 12- and 16-byte fields when an
        // array starts on a line, so that two members write at most one line in common.
        let size = len.div_ceil(MAX_BLOCKS).next_multiple_of(16);
        let ends: [usize; MAX_BLOCKS] = std::array::from_fn(|k| ((k + 1) * size).min(len));
        let count = len.div_ceil(size);
        let mut chunks = cut(parts, &ends[..count]);
        let all: [usize; MAX_BLOCKS] = std::array::from_fn(|k| k);
        self.for_each_at(&mut chunks, &all[..count], |k, chunk| {
            f(k * size, std::mem::take(chunk))
        });
    }

    /// Claims and runs items of the job of `epoch` (of `n` items) for `member`: its own, then
    /// any left over. Claims fail once the job is over, so a member that read an old job runs
    /// nothing.
    fn work(&self, member: usize, epoch: u32, n: usize) {
        let own = (member..n).step_by(self.members);
        let others = (0..n).filter(|k| k % self.members != member);
        for k in own.chain(others) {
            if self.claimed[k].fetch_max(epoch, Ordering::AcqRel) < epoch {
                // Counts the item done when it returns, also when it panics.
                let _done = Done(&self.done);
                // SAFETY: the item is claimed and not done, so its publisher is waiting for it
                // (holding `publishing`) and `job` holds this epoch's closure, alive on the
                // publisher's stack.
                unsafe {
                    let job = (*self.job.get()).expect("a published job");
                    (job.call)(job.data, k);
                }
            }
        }
    }

    /// A member's loop: works every new job until the leader is finished.
    fn serve(&self, member: usize) {
        let (mut seen, backoff) = (0, Backoff::new());
        loop {
            let word = self.word.load(Ordering::Acquire);
            let epoch = (word >> 32) as u32;
            if epoch != seen {
                seen = epoch;
                self.work(member, epoch, word as u32 as usize);
                backoff.reset();
            } else if self.stop.load(Ordering::Acquire) {
                return;
            } else {
                backoff.snooze();
            }
        }
    }
}

/// `parts` cut into consecutive pieces that end at `ends` (increasing, counted from the start of
/// `parts`, at most [`MAX_BLOCKS`] of them), in the first `ends.len()` entries; the others are
/// empty.
///
/// # Panics
/// If an end is before the previous one or past the end of `parts`.
pub fn cut<S: Split>(parts: S, ends: &[usize]) -> [S; MAX_BLOCKS] {
    assert!(ends.len() <= MAX_BLOCKS, "{} pieces", ends.len());
    let (mut rest, mut at) = (parts, 0);
    std::array::from_fn(|k| match ends.get(k) {
        Some(&end) => {
            let (piece, tail) = std::mem::take(&mut rest).split_at(end - at);
            (rest, at) = (tail, end);
            piece
        }
        None => S::default(),
    })
}

/// Fewest elements [`Team::for_each_chunk`] spreads over a team: below this a per-particle stage
/// takes a few µs, not worth handing out.
pub const MIN_CHUNK_LEN: usize = 4096;

/// Slices that [`Team::for_each_chunk`] cuts into consecutive chunks: a slice, or a tuple of
/// slices of one length, cut at the same places.
pub trait Split: Sized + Send + Default {
    /// Elements in each slice.
    fn elements(&self) -> usize;
    /// The first `mid` elements of each slice, and the rest.
    fn split_at(self, mid: usize) -> (Self, Self);
}

impl<T: Send> Split for &mut [T] {
    fn elements(&self) -> usize {
        self.len()
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }
}

impl<T: Sync> Split for &[T] {
    fn elements(&self) -> usize {
        self.len()
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        <[T]>::split_at(self, mid)
    }
}

/// `Split` for tuples of slices (checked to be of one length).
macro_rules! split_tuple {
    ($($s:ident),+) => {
        impl<$($s: Split),+> Split for ($($s,)+) {
            fn elements(&self) -> usize {
                #[allow(non_snake_case)]
                let ($($s,)+) = self;
                let lens = [$($s.elements()),+];
                assert!(lens.iter().all(|&l| l == lens[0]), "slices of lengths {lens:?}");
                lens[0]
            }

            fn split_at(self, mid: usize) -> (Self, Self) {
                #[allow(non_snake_case)]
                let ($($s,)+) = self;
                #[allow(non_snake_case)]
                let ($($s,)+) = ($($s.split_at(mid),)+);
                (($($s.0,)+), ($($s.1,)+))
            }
        }
    };
}
split_tuple!(A, B);
split_tuple!(A, B, C);
split_tuple!(A, B, C, D);
split_tuple!(A, B, C, D, E);

/// Counts an item done when dropped.
struct Done<'a>(&'a AtomicU32);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Release);
    }
}

/// Releases the team's `publishing` flag when dropped.
struct Published<'a>(&'a Team);

impl Drop for Published<'_> {
    fn drop(&mut self) {
        self.0.publishing.store(false, Ordering::Release);
    }
}

/// Sets the team's `stop` when dropped.
struct Stop<'a>(&'a Team);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::Release);
    }
}

/// The end of a job: when dropped, claims (and counts done, without running them) the items no
/// member claimed, which happens only when the leader panicked in an item, then waits until every
/// claimed item is done.
struct Finish<'a> {
    team: &'a Team,
    epoch: u32,
    n: usize,
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        let team = self.team;
        for claimed in &team.claimed[..self.n] {
            if claimed.fetch_max(self.epoch, Ordering::AcqRel) < self.epoch {
                team.done.fetch_add(1, Ordering::Release);
            }
        }
        let backoff = Backoff::new();
        while (team.done.load(Ordering::Acquire) as usize) < self.n {
            backoff.snooze();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{AssertUnwindSafe, catch_unwind};

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Runs 2,000 jobs over changing subsets of eight counters and checks that every selected
    /// item ran exactly once per job and no other did.
    fn count_runs(team: &Team) {
        let mut counts = [0u32; MAX_BLOCKS];
        let mut expected = [0u32; MAX_BLOCKS];
        for job in 0..2000 {
            let at: Vec<usize> = (0..MAX_BLOCKS)
                .filter(|i| (job >> (i % 3)) & 1 == 0)
                .collect();
            at.iter().for_each(|&i| expected[i] += 1);
            team.for_each_at(&mut counts, &at, |_, c| *c += 1);
        }
        assert_eq!(counts, expected);
    }

    #[test]
    fn every_item_runs_once_per_job_for_any_team_size() {
        for threads in [1, 2, 4] {
            let members = pool(threads).install(|| {
                Team::scope(threads, |team| {
                    count_runs(team);
                    team.members()
                })
            });
            assert_eq!(members, threads);
        }
    }

    #[test]
    fn the_leader_works_alone_when_the_other_threads_are_busy() {
        pool(2).install(|| {
            let busy = AtomicBool::new(true);
            rayon::join(
                || {
                    Team::scope(2, count_runs);
                    busy.store(false, Ordering::Release);
                },
                // Holds the pool's other thread (if it takes this half) until the team is done.
                || {
                    while busy.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                },
            );
        });
    }

    #[test]
    fn a_panicking_item_reaches_the_caller() {
        for threads in [1, 2] {
            let result = catch_unwind(AssertUnwindSafe(|| {
                pool(threads).install(|| {
                    Team::scope(threads, |team| {
                        let mut items = [0; 4];
                        team.for_each_at(&mut items, &[0, 1, 2, 3], |i, _| {
                            assert!(i != 2, "item {i}");
                        });
                    })
                })
            }));
            assert!(result.is_err());
        }
    }

    /// The message of a caught panic.
    fn message(payload: &(dyn std::any::Any + Send)) -> String {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    }

    #[test]
    fn a_job_published_from_an_item_panics_and_reaches_the_caller() {
        for threads in [1, 2] {
            let result = catch_unwind(AssertUnwindSafe(|| {
                pool(threads).install(|| {
                    Team::scope(threads, |team| {
                        let mut items = [0u32; 4];
                        team.for_each_at(&mut items, &[0, 1, 2, 3], |_, item| {
                            team.for_each_at(&mut [0u32; 2], &[0, 1], |_, inner| *inner += 1);
                            *item += 1;
                        });
                    })
                })
            }));
            let payload = result.expect_err("the nested job was refused");
            assert!(
                message(&*payload).contains("one job at a time"),
                "{threads} threads: {:?}",
                message(&*payload)
            );
        }
    }

    #[test]
    fn two_threads_publishing_at_once_are_caught() {
        // A team of one in a pool of two, so that the pool's other thread is free to take the
        // second half of the join. Half `a` holds a job open until `b` has tried to publish (or
        // a bound of about ten seconds has passed, so that the test cannot hang); `b` publishes
        // once `a`'s job is running. The guard is checked before the job cell is touched, so `b`
        // panics at once.
        let (running, tried) = (AtomicBool::new(false), AtomicBool::new(false));
        let wait = |flag: &AtomicBool| {
            for _ in 0..10_000 {
                if flag.load(Ordering::Acquire) {
                    return true;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            false
        };
        let (a, b) = pool(2).install(|| {
            Team::scope(1, |team| {
                rayon::join(
                    || {
                        team.for_each_at(&mut [0u32; 1], &[0], |_, _| {
                            running.store(true, Ordering::Release);
                            wait(&tried);
                        })
                    },
                    || {
                        let seen = wait(&running);
                        let result = catch_unwind(AssertUnwindSafe(|| {
                            team.for_each_at(&mut [0u32; 1], &[0], |_, _| {})
                        }));
                        tried.store(true, Ordering::Release);
                        (seen, result.map_err(|p| message(&*p)))
                    },
                )
            })
        });
        let (seen, result) = b;
        assert_eq!(a, ());
        assert!(
            seen,
            "the second half ran while the first one's job was open"
        );
        let err = result.expect_err("the second publisher was refused");
        assert!(err.contains("one job at a time"), "{err}");
    }

    #[test]
    fn two_threads_publishing_in_a_loop_are_caught() {
        // The halves of a join inside the scope of a team of two, in a pool of three (the leader,
        // the member, and a free thread to take the second half), publish jobs in a loop until
        // one is refused, or ten seconds have passed so that the test cannot hang. Every job
        // accepted runs each of its items exactly once.
        let refused = AtomicBool::new(false);
        let start = std::time::Instant::now();
        let all: [usize; MAX_BLOCKS] = std::array::from_fn(|k| k);
        pool(3).install(|| {
            Team::scope(2, |team| {
                let half = || {
                    while !refused.load(Ordering::Acquire) && start.elapsed().as_secs() < 10 {
                        let mut counts = [0u32; MAX_BLOCKS];
                        match catch_unwind(AssertUnwindSafe(|| {
                            team.for_each_at(&mut counts, &all, |_, c| *c += 1)
                        })) {
                            Ok(()) => assert_eq!(counts, [1; MAX_BLOCKS]),
                            Err(p) => {
                                assert!(message(&*p).contains("one job at a time"));
                                refused.store(true, Ordering::Release);
                            }
                        }
                    }
                };
                rayon::join(half, half);
            })
        });
        assert!(refused.into_inner(), "no publisher was refused");
    }

    #[test]
    fn chunks_cover_every_element_once_at_its_offset() {
        for threads in [1, 2, 4] {
            pool(threads).install(|| {
                Team::scope(threads, |team| {
                    for len in [0, 1, MIN_CHUNK_LEN - 1, MIN_CHUNK_LEN, 10_000, 100_003] {
                        let index: Vec<usize> = (0..len).collect();
                        let mut seen = vec![0usize; len];
                        let mut copy = vec![usize::MAX; len];
                        let calls = AtomicU32::new(0);
                        team.for_each_chunk(
                            (&mut seen[..], &mut copy[..], &index[..]),
                            |offset, (seen, copy, index)| {
                                calls.fetch_add(1, Ordering::Relaxed);
                                for (k, ((s, c), &i)) in
                                    seen.iter_mut().zip(copy).zip(index).enumerate()
                                {
                                    assert_eq!(
                                        i,
                                        offset + k,
                                        "element {k} of the chunk at {offset}"
                                    );
                                    *s += 1;
                                    *c = i;
                                }
                            },
                        );
                        assert!(
                            seen.iter().all(|&s| s == 1),
                            "{threads} threads, {len} elements"
                        );
                        assert_eq!(copy, index);
                        let calls = calls.into_inner() as usize;
                        if threads == 1 || len < MIN_CHUNK_LEN {
                            assert_eq!(calls, 1, "one call on the whole");
                        } else {
                            assert!((2..=MAX_BLOCKS).contains(&calls), "{calls} chunks");
                        }
                    }
                })
            });
        }
    }

    #[test]
    fn cut_ends_each_piece_at_its_end() {
        let data: Vec<u32> = (0..10).collect();
        let pieces = cut(&data[..], &[3, 3, 7]);
        assert_eq!(pieces[..3], [&data[..3], &[], &data[3..7]]);
        assert!(pieces[3..].iter().all(|p| p.is_empty()));
    }

    #[test]
    #[should_panic(expected = "mid > len")]
    fn cut_refuses_an_end_past_the_slice() {
        cut(&[0u32; 4][..], &[2, 5]);
    }

    #[test]
    #[should_panic(expected = "lengths")]
    fn slices_of_different_lengths_are_refused() {
        Team::scope(1, |team| {
            team.for_each_chunk((&mut [0; 4][..], &[0; 3][..]), |_, _| {});
        });
    }

    #[test]
    #[should_panic(expected = "increasing")]
    fn repeated_indices_are_refused() {
        Team::scope(1, |team| team.for_each_at(&mut [0; 4], &[1, 1], |_, _| {}));
    }
}
