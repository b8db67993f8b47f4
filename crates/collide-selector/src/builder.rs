//! [`Builder`]: builds a candidate beside the active one, on a thread of its own.
//!
//! A candidate's build — a kd tree or a dynamic tree of 10⁵ bodies, tens of milliseconds — would make the frame
//! it lands in cost several of the active candidate's frames. The builder takes the candidate, a copy of one
//! frame's boxes and its pairs, and warm-starts it on its own thread while the active candidate goes on
//! answering; then, as the runner hands it the boxes of later frames, it runs the candidate's first
//! [`CATCH_UP_CALLS`](crate::controller::CATCH_UP_CALLS) calls there too (the dearest calls of an incremental
//! structure after its build: the dynamic tree's second call rebuilds with the reaches it has just measured). The
//! candidate then comes back ready to answer, and its first call in the foreground is a steady one.
//!
//! The thread runs its work inside a rayon pool of one thread, so the candidate's parallel sections run serially
//! there instead of queueing behind the active candidate's on the shared pool: the build takes the place of one
//! thread beside the active candidate's two, for as long as it lasts, rather than stalling any frame.
//!
//! The thread is started at the first build and stopped when the builder is dropped (after its work in
//! progress, if any). Each job carries a generation: a resize between the start and the end of a build makes
//! its result stale, and the runner discards it. A permutation (the simulation's spatial reorder) does not: the
//! runner renames the candidate by it when its step comes back.

use collide_broadphase::{Aabb, Broadphase, Frame, InvalidBoxes, Pair, PairList};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::thread::JoinHandle;
use std::time::Instant;

/// What the thread is asked to do.
enum Work {
    /// Warm-start `broadphase` from `boxes` and `pairs`.
    Warm(Job),
    /// Run `broadphase` on `boxes` (a catch-up call).
    Call(Job),
}

/// One build step: the candidate, a frame's copy, and what it needs.
pub struct Job {
    /// The candidate's index in the selector.
    pub candidate: usize,
    /// Its instance (moved to the thread and back).
    pub broadphase: Box<dyn Broadphase>,
    /// A copy of the frame's boxes.
    pub boxes: Vec<Aabb>,
    /// A copy of the frame's pairs (for a warm start), or the call's output (for a catch-up call).
    pub pairs: PairList,
    /// The frame's step and time step.
    pub step: u64,
    /// The frame's time step.
    pub dt: f32,
    /// The frame's policy for invalid boxes.
    pub invalid_boxes: InvalidBoxes,
    /// The runner's generation when the job was sent (see the module docs).
    pub generation: u64,
    /// Thread time spent on this candidate's build so far, ms.
    pub ms: f64,
}

/// The builder thread and its channels.
#[derive(Default)]
pub struct Builder {
    thread: Option<(SyncSender<Work>, Receiver<Job>, JoinHandle<()>)>,
    /// `true` while a step is on the thread.
    busy: bool,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder").field("started", &self.thread.is_some()).field("busy", &self.busy).finish()
    }
}

impl Builder {
    /// Send `job` to be warm-started (`warm`) or called once (a catch-up call). Starts the thread on first use.
    /// Panics if a step is already on the thread (the runner sends one at a time).
    pub fn send(&mut self, job: Job, warm: bool) {
        assert!(!self.busy, "one build step at a time");
        let (tx, _, _) = self.thread.get_or_insert_with(start);
        let work = if warm { Work::Warm(job) } else { Work::Call(job) };
        if tx.send(work).is_ok() {
            self.busy = true;
        }
    }

    /// The step that has finished, if one has.
    pub fn poll(&mut self) -> Option<Job> {
        let (_, rx, _) = self.thread.as_ref()?;
        match rx.try_recv() {
            Ok(job) => {
                self.busy = false;
                Some(job)
            }
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => None,
        }
    }

    /// Wait for the step on the thread, if any (a reset must not leave a candidate on the thread).
    pub fn wait(&mut self) -> Option<Job> {
        if !self.busy {
            return None;
        }
        let (_, rx, _) = self.thread.as_ref()?;
        self.busy = false;
        rx.recv().ok()
    }
}

impl Drop for Builder {
    fn drop(&mut self) {
        if let Some((tx, rx, handle)) = self.thread.take() {
            drop(tx);
            drop(rx);
            let _ = handle.join();
        }
    }
}

/// Start the thread: it takes one step at a time, in a rayon pool of one thread, and sends it back.
fn start() -> (SyncSender<Work>, Receiver<Job>, JoinHandle<()>) {
    let (work_tx, work_rx) = sync_channel::<Work>(1);
    let (done_tx, done_rx) = sync_channel::<Job>(1);
    let handle = std::thread::Builder::new()
        .name("auto: build beside".into())
        .spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
            let run = |work: Work| -> Job {
                let t = Instant::now();
                let mut job = match work {
                    Work::Warm(mut job) => {
                        let pairs = std::mem::take(&mut job.pairs);
                        let frame = Frame::new(&job.boxes)
                            .with_step(job.step)
                            .with_dt(job.dt)
                            .with_invalid_boxes(job.invalid_boxes);
                        job.broadphase.warm_start(&frame, pairs.as_slice());
                        job.pairs = pairs;
                        job
                    }
                    Work::Call(mut job) => {
                        let Job { broadphase, boxes, pairs, step, dt, invalid_boxes, .. } = &mut job;
                        let frame = Frame::new(boxes).with_step(*step).with_dt(*dt).with_invalid_boxes(*invalid_boxes);
                        broadphase.find_pairs(&frame, pairs);
                        job
                    }
                };
                job.ms += t.elapsed().as_secs_f64() * 1e3;
                job
            };
            while let Ok(work) = work_rx.recv() {
                let job = match &pool {
                    Some(pool) => pool.install(|| run(work)),
                    None => run(work),
                };
                if done_tx.send(job).is_err() {
                    break;
                }
            }
        })
        .expect("the operating system refused a thread for the build beside");
    (work_tx, done_rx, handle)
}

/// Copy `frame`'s boxes and `pairs` into `job`'s buffers (kept from job to job, so a warm builder allocates
/// only when a frame outgrows them).
pub fn snapshot(job: &mut Job, frame: &Frame<'_>, pairs: &[Pair]) {
    job.boxes.clear();
    job.boxes.extend_from_slice(frame.aabbs);
    job.pairs.clear();
    job.pairs.extend_from_slice(pairs);
    job.step = frame.step;
    job.dt = frame.dt;
    job.invalid_boxes = frame.invalid_boxes;
}

#[cfg(test)]
mod tests;
