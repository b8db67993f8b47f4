use super::*;

#[test]
fn every_entry_is_a_registry_row_with_valid_parameters_or_a_peer() {
    for comparison in COMPARISONS {
        assert!(comparison.entries.iter().any(|e| e.label == comparison.reference), "{}", comparison.name);
        for entry in comparison.entries {
            if contenders::is_peer(entry.name) {
                assert!(entry.params.is_empty() && !entry.hint, "{}", entry.label);
            } else {
                entry_params(entry).unwrap();
            }
        }
        for scene in comparison.scenes {
            collide_sim::find_scenario(scene.scenario).unwrap();
        }
    }
}

#[test]
fn every_contender_of_a_small_scene_finds_the_recorded_pairs() {
    for comparison in COMPARISONS {
        let rec = record(&comparison.scenes[0], 600, WARM + 2, 3, true).unwrap();
        let plays = play(true, comparison, &rec).unwrap();
        for (entry, p) in comparison.entries.iter().zip(&plays) {
            let r = row(comparison, &comparison.scenes[0], entry, 600, &rec, p);
            assert!(r.check.starts_with("ref ok (5 frames; driver brute ok"), "{}: {}", entry.label, r.check);
            assert_eq!((r.frames, r.status.as_str()), (2, "ok"), "{}", entry.label);
        }
    }
}
