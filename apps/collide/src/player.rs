//! Playing a recorded `.aabbs` file in the window: [`collide_sim::Replay`] (the boxes frame by frame into the
//! broadphase, no physics) driven by the app's clock, with pause, single steps, scrubbing and looping.
//!
//! The clock is the replay's ([`collide_timing::Clock`], from the config's `[time]` table), and each step it
//! grants plays one recorded frame: under the default fixed policy that is one frame per drawn frame, under
//! `accumulator` one per `dt` of real time (times the time scale). The frame on screen is always the last one
//! played, so a scrub plays the frame it lands on at once, paused or not.

use collide_sim::{Plan, Replay};

/// A replay in the window (see the module docs).
pub struct Player {
    replay: Replay,
    /// Start again from the first frame at the end (otherwise pause on the last).
    pub looping: bool,
}

impl Player {
    /// Open the replay `plan` describes and show its first frame. Errors are one line naming the file (and the
    /// frame and box of a bad box: every frame is checked, streamed, before the first is shown).
    pub fn new(plan: &Plan) -> Result<Self, String> {
        let replay = Replay::of(plan).map_err(|e| e.to_string())?;
        let mut player = Self { replay, looping: true };
        player.play_one(&mut |_| {})?;
        Ok(player)
    }

    /// Play the frames the clock grants for a drawn frame `real_seconds` long, calling `each` after every one
    /// (the recorder). Returns how many were played.
    pub fn frame(&mut self, real_seconds: f32, each: &mut dyn FnMut(&Replay)) -> Result<u32, String> {
        let steps = self.replay.clock_mut().advance(real_seconds);
        for _ in 0..steps.count {
            self.play_one(each)?;
        }
        Ok(steps.count)
    }

    /// Play the next frame; at the end of the file start again (looping) or pause on the last frame.
    fn play_one(&mut self, each: &mut dyn FnMut(&Replay)) -> Result<(), String> {
        if self.replay.step().map_err(|e| e.to_string())?.is_none() {
            if !self.looping {
                self.replay.clock_mut().paused = true;
                return Ok(());
            }
            self.replay.seek(0).map_err(|e| e.to_string())?;
            if self.replay.step().map_err(|e| e.to_string())?.is_none() {
                return Err(format!("{}: no frame to play", self.replay.setup().path.display()));
            }
        }
        each(&self.replay);
        Ok(())
    }

    /// Show `frame` (clamped to the file): it is played at once, and playing goes on from it.
    pub fn seek(&mut self, frame: u64) -> Result<(), String> {
        let frame = frame.min(self.frames().saturating_sub(1));
        self.replay.seek(frame).map_err(|e| e.to_string())?;
        self.play_one(&mut |_| {})
    }

    /// The frame on screen (the last one played), counted from 0.
    #[must_use]
    pub fn shown(&self) -> u64 {
        self.replay.next_frame().saturating_sub(1)
    }

    /// Frames in the file.
    #[must_use]
    pub fn frames(&self) -> u64 {
        self.replay.header().frames
    }

    /// The replay: its boxes, pairs, broadphase and records.
    #[must_use]
    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    /// The replay, to switch its broadphase or forget its records.
    pub fn replay_mut(&mut self) -> &mut Replay {
        &mut self.replay
    }
}
