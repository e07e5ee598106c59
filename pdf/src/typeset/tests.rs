use super::*;

#[test]
fn every_script_gets_a_font_that_has_it() {
    let face_of = |text: &str| {
        let faces: Vec<usize> = faces_for(text).into_iter().map(|(_, f)| f).collect();
        faces
    };
    assert_eq!(face_of("Zoë Łukasiewicz"), vec![0; 15]);
    assert!(face_of("Юлия Αλέξης").iter().all(|&f| f == 0));
    assert!(face_of("محمد").iter().all(|&f| f == 1));
    assert!(face_of("דוד").iter().all(|&f| f == 2));
    assert!(face_of("प्रिया").iter().all(|&f| f == 3));
    assert!(face_of("王芳 김민준 さくら").iter().all(|&f| f == 4));
    // Latin after CJK goes back to Noto Sans.
    assert_eq!(face_of("王 A").last(), Some(&0));
}

#[test]
fn shaping_joins_arabic_and_lays_it_out_right_to_left() {
    let line = shape("محمد");
    assert_eq!(line.glyphs.len(), 4);
    assert!(line.rtl);
    assert!(!shape_as("محمد", Base::Ltr).rtl);
    // Visual order: the last letter comes first.
    assert_eq!(line.glyphs[0].text, "د");
    assert_eq!(line.glyphs[3].text, "م");
    // Joined forms, not the isolated ones.
    let isolated = LOADED[1].shaper.glyph_index('م').map(|g| g.0);
    assert_ne!(Some(line.glyphs[3].id), isolated);
    assert!(line.width > 0.0);
}

#[test]
fn isolated_values_keep_their_order_in_right_to_left_lines() {
    let text = format!("تاريخ: {}", isolate("2026-11-21T22:38:39.123Z"));
    let line = shape_as(&text, Base::Rtl);
    assert!(line.rtl);
    // Drawn left to right first (the time, whole, at the left end), then the Arabic.
    let drawn: Vec<&str> = line.runs.iter().map(|run| run.actual.as_str()).collect();
    assert_eq!(drawn, ["2026-11-21T22:38:39.123Z", " :خيرات"]);
    // The isolate marks are laid out but not drawn.
    assert!(line.glyphs.iter().all(|g| !g.text.contains([FSI, PDI])));
    assert_eq!(
        line.glyphs.len(),
        "تاريخ: 2026-11-21T22:38:39.123Z".chars().count()
    );
}

/// The line's text in the order it is drawn, left to right, as `pdftotext` reads it back.
fn drawn(line: &Shaped) -> String {
    line.runs
        .iter()
        .map(|run| {
            if run.actual.chars().any(|c| {
                unicode_bidi::bidi_class(c) == unicode_bidi::BidiClass::R
                    || unicode_bidi::bidi_class(c) == unicode_bidi::BidiClass::AL
            }) {
                run.actual.chars().rev().collect::<String>()
            } else {
                run.actual.clone()
            }
        })
        .collect()
}

#[test]
fn recorded_values_show_their_controls_in_stored_order() {
    // Drawn as bare text, the override reverses the digits: $10000.00.
    let spoofed = shape("$\u{202E}00.00001\u{202C}");
    assert_eq!(drawn(&spoofed), "$10000.00");
    let line = shape_as(
        &format!("Value: {}", recorded("$\u{202E}00.00001\u{202C}")),
        Base::Ltr,
    );
    assert_eq!(drawn(&line), "Value: $<U+202E>00.00001<U+202C>");
    let line = shape_as(
        &format!("Title: {}", recorded("Lease \u{202E}fdp.exe")),
        Base::Ltr,
    );
    assert_eq!(drawn(&line), "Title: Lease <U+202E>fdp.exe");
    // Marks alone reorder too: with right-to-left marks around its dot, "pdf.exe" reads
    // "exe.pdf".
    assert_eq!(drawn(&shape("\u{200F}pdf\u{200F}.\u{200F}exe")), "exe.pdf");
    assert_eq!(
        drawn(&shape_as(
            &recorded("\u{200F}pdf\u{200F}.\u{200F}exe"),
            Base::Ltr
        )),
        "<U+200F>pdf<U+200F>.<U+200F>exe"
    );
    // Marks, isolates, zero-width and other invisible characters too.
    assert_eq!(
        escaped("a\u{200F}b\u{2067}c\u{2069}\u{200B}d\u{FEFF}"),
        "a\u{2066}<U+200F>\u{2069}b\u{2066}<U+2067>\u{2069}c\u{2066}<U+2069>\u{2069}\
         \u{2066}<U+200B>\u{2069}d\u{2066}<U+FEFF>\u{2069}"
    );
    // In a right-to-left line an escape still reads left to right, where the mark was.
    let line = shape_as(&recorded("דוד\u{200F}"), Base::Rtl);
    let runs: Vec<&str> = line.runs.iter().map(|run| run.actual.as_str()).collect();
    assert!(runs.contains(&"<U+200F>"), "{runs:?}");
    // Real right-to-left names and joiners are laid out as before, nothing escaped.
    for name in ["محمد الأحمد", "דוד כהן", "प्रिया शर्मा", "می\u{200C}خواهم"]
    {
        assert_eq!(escaped(name), name);
    }
}

#[test]
fn nothing_becomes_a_question_mark() {
    for text in ["Zoë", "王芳", "😀", "\u{10FFFD}"] {
        let line = shape(text);
        assert!(!line.glyphs.is_empty(), "{text}");
        let question = LOADED[0].shaper.glyph_index('?').map(|g| g.0);
        assert!(line.glyphs.iter().all(|g| Some(g.id) != question), "{text}");
    }
    assert_eq!(clean("a\tb\nc\u{0}"), "a b c");
    assert_eq!(clean("Bob  \t Typed"), "Bob Typed");
}
