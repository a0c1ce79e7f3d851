//! Frame pacing: how many fixed-length simulation frames to run for the wall-clock time that
//! has passed, without spiralling when a frame costs more than it simulates.

/// Time constant of the speed and timing averages, s.
const AVERAGE_WINDOW_S: f64 = 1.0;

/// Runs the simulation at real time in fixed frames of `dt` seconds, at most `max_steps` per
/// rendered frame. Wall time that was not simulated (beyond that cap, or because the caller ran
/// out of time) is dropped: the simulation slows down instead of falling further and further
/// behind.
#[derive(Clone, Debug)]
pub struct FramePacer {
    /// Simulated time of one frame, s.
    dt: f64,
    /// Most simulation frames run for one rendered frame.
    max_steps: u32,
    /// Wall time not yet simulated, s.
    backlog: f64,
    /// Decaying sums of simulated and wall time, s: their ratio is the speed.
    simulated: f64,
    wall: f64,
}

impl FramePacer {
    /// A pacer for frames of `dt` seconds, running at most `max_steps` per rendered frame.
    pub fn new(dt: f64, max_steps: u32) -> Self {
        FramePacer {
            dt,
            max_steps: max_steps.max(1),
            backlog: 0.0,
            simulated: 0.0,
            wall: 0.0,
        }
    }

    /// Adds `elapsed` seconds of wall time and returns how many frames are due now (at most
    /// `max_steps`). Report how many ran with [`ran`](Self::ran).
    pub fn advance(&mut self, elapsed: f64) -> u32 {
        let elapsed = elapsed.max(0.0);
        self.backlog += elapsed;
        let decay = (-elapsed / AVERAGE_WINDOW_S).exp();
        self.simulated *= decay;
        self.wall = self.wall * decay + elapsed;
        (self.backlog / self.dt).floor().min(self.max_steps as f64) as u32
    }

    /// Records that `steps` frames were simulated. When fewer ran than real time asked for (the
    /// cap, or a caller out of time), the rest of the backlog is dropped.
    pub fn ran(&mut self, steps: u32) {
        self.simulated += steps as f64 * self.dt;
        self.backlog = (self.backlog - steps as f64 * self.dt).max(0.0);
        if self.backlog >= self.dt {
            self.backlog %= self.dt;
        }
    }

    /// Forgets the backlog and the speed history (after a pause or a reset).
    pub fn reset(&mut self) {
        *self = FramePacer::new(self.dt, self.max_steps);
    }

    /// Simulated seconds per wall-clock second over about the last second (1 is real time).
    pub fn speed(&self) -> f64 {
        if self.wall > 0.0 {
            self.simulated / self.wall
        } else {
            1.0
        }
    }

    /// True when the simulation runs noticeably slower than real time.
    pub fn is_behind(&self) -> bool {
        self.speed() < 0.95
    }
}

/// An exponential moving average of a quantity sampled at irregular times.
#[derive(Clone, Copy, Debug, Default)]
pub struct MovingAverage {
    value: Option<f64>,
}

impl MovingAverage {
    /// Folds in `sample`, weighting it by `1 − exp(−elapsed / 1 s)` (`elapsed` in seconds).
    pub fn add(&mut self, sample: f64, elapsed: f64) {
        let weight = 1.0 - (-elapsed.max(0.0) / AVERAGE_WINDOW_S).exp();
        self.value = Some(match self.value {
            Some(v) => v + (sample - v) * weight,
            None => sample,
        });
    }

    /// The average so far (0 before the first sample).
    pub fn get(&self) -> f64 {
        self.value.unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame length that is exact in binary, so that sums of its fractions are too.
    const DT: f64 = 1.0 / 64.0;

    /// Advances `pacer` by `elapsed` seconds and runs every frame that is due.
    fn run(pacer: &mut FramePacer, elapsed: f64) -> u32 {
        let steps = pacer.advance(elapsed);
        pacer.ran(steps);
        steps
    }

    #[test]
    fn steps_once_per_frame_at_the_simulation_rate() {
        let mut pacer = FramePacer::new(DT, 4);
        let steps: u32 = (0..600).map(|_| run(&mut pacer, DT * 1.000001)).sum();
        assert_eq!(steps, 600);
        assert!((pacer.speed() - 1.0).abs() < 0.01 && !pacer.is_behind());
    }

    #[test]
    fn faster_rendering_alternates_between_zero_and_one_step() {
        let mut pacer = FramePacer::new(DT, 4);
        let steps: Vec<u32> = (0..240).map(|_| run(&mut pacer, DT / 4.0)).collect();
        assert!(steps.iter().all(|&s| s <= 1));
        assert_eq!(steps.iter().sum::<u32>(), 60);
        assert!(!pacer.is_behind());
    }

    #[test]
    fn slow_frames_are_capped_and_reported_behind() {
        let mut pacer = FramePacer::new(DT, 3);
        for _ in 0..100 {
            assert_eq!(run(&mut pacer, 0.5), 3, "never more than the cap");
        }
        assert!(pacer.backlog < DT, "the excess is dropped, not accumulated");
        assert!((pacer.speed() - 3.0 * DT / 0.5).abs() < 1e-6);
        assert!(pacer.is_behind());
        pacer.reset();
        assert_eq!(run(&mut pacer, DT * 1.5), 1);
    }

    #[test]
    fn frames_the_caller_skips_are_dropped_too() {
        let mut pacer = FramePacer::new(DT, 8);
        assert_eq!(pacer.advance(4.0 * DT), 4);
        pacer.ran(1);
        assert!(pacer.backlog < DT);
        assert!((pacer.speed() - 0.25).abs() < 1e-9);
    }

    #[test]
    fn moving_average_starts_at_the_first_sample_and_converges() {
        let mut avg = MovingAverage::default();
        assert_eq!(avg.get(), 0.0);
        avg.add(10.0, 0.1);
        assert_eq!(avg.get(), 10.0);
        for _ in 0..200 {
            avg.add(2.0, 0.1);
        }
        assert!((avg.get() - 2.0).abs() < 1e-6);
    }
}
