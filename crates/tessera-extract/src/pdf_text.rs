//! The text of a PDF's pages: each page's content run for its text operators only, the pen
//! followed through the text and graphics matrices so a gap reads as a space and a move to
//! another baseline as a newline.
//!
//! Bounded: a form XObject is run at most [`MAX_FORM_DEPTH`] deep, never inside itself, and
//! not again once it drew no text; the content run in total (a form counted each time it runs)
//! stops at `max_inflated_bytes`, keeping what was read; the text stops at
//! `max_extracted_bytes` (TooMuchText). Operands are capped in number and size, so a content
//! stream of `[[[[…` or of a million numbers costs no more than its bytes.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::pdf::{dict_of, lookup, PageRef};
use super::pdf_decode::Inflation;
use super::pdf_font::{number, Font};
use super::pdf_layout::{numbers, Matrix, Placed, Text};
use super::pdf_load::Pdf;
use super::pdf_syntax::{self, Lexer, Token};
use super::{ExtractError, Limits};

const MAX_FORM_DEPTH: usize = 12;
const MAX_SAVED_STATES: usize = 256;
const MAX_OPERANDS: usize = 32;
const MAX_OPERAND_OBJECTS: usize = 65_536;
/// Cmap bytes parsed for one document, all fonts together. A CJK font's cmap is a few hundred
/// KiB; lopdf's parsed form of one takes several times its size, and is kept while pages are
/// read. A font past this budget shows no text.
const MAX_CMAP_BYTES: u64 = 16 * 1024 * 1024;

pub(super) fn page_texts<'d>(
    pdf: &'d Pdf,
    pages: &[PageRef<'d>],
    limits: &Limits,
    inflation: &mut Inflation,
) -> Result<Vec<String>, ExtractError> {
    let mut reader = Reader {
        pdf,
        inflation,
        fonts: HashMap::new(),
        forms: HashMap::new(),
        textless: HashSet::new(),
        open_forms: Vec::new(),
        work_left: limits.max_inflated_bytes,
        cmap_left: MAX_CMAP_BYTES,
        text: Text::new(limits.max_extracted_bytes),
    };
    let mut texts = Vec::with_capacity(pages.len());
    for &(page, resources) in pages {
        let content = reader.page_content(page)?;
        let flow = reader.run(&content, resources, State::new(), 0)?;
        texts.push(reader.text.take_page());
        if flow == Flow::Stop {
            break;
        }
    }
    Ok(texts)
}

#[derive(Clone)]
struct State<'d> {
    ctm: Matrix,
    font: Option<Rc<Font<'d>>>,
    size: f64,
    char_space: f64,
    word_space: f64,
    scale: f64,
    leading: f64,
    rise: f64,
}

impl State<'_> {
    fn new() -> Self {
        Self {
            ctm: Matrix::IDENTITY,
            font: None,
            size: 0.0,
            char_space: 0.0,
            word_space: 0.0,
            scale: 1.0,
            leading: 0.0,
            rise: 0.0,
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

struct Reader<'d, 'i> {
    pdf: &'d Pdf,
    inflation: &'i mut Inflation,
    /// By the font dictionary's address in the document, which does not move while it is read.
    fonts: HashMap<*const Dictionary, Rc<Font<'d>>>,
    forms: HashMap<ObjectId, Rc<[u8]>>,
    textless: HashSet<ObjectId>,
    open_forms: Vec<ObjectId>,
    work_left: u64,
    cmap_left: u64,
    text: Text,
}

impl<'d> Reader<'d, '_> {
    fn page_content(&mut self, page: &'d Dictionary) -> Result<Vec<u8>, ExtractError> {
        let pdf: &'d Pdf = self.pdf;
        let stream_id = |object: &Object| match pdf.doc.dereference(object) {
            Ok((Some(id), Object::Stream(_))) => Some(id),
            _ => None,
        };
        let ids: Vec<ObjectId> = match page.get(b"Contents").map(|c| pdf.doc.dereference(c)) {
            Ok(Ok((_, Object::Array(items)))) => items.iter().filter_map(stream_id).collect(),
            Ok(Ok((Some(id), Object::Stream(_)))) => vec![id],
            _ => Vec::new(),
        };
        let mut content = Vec::new();
        for id in ids {
            let Some(stream) = pdf.streams.get(&id) else {
                continue;
            };
            if let Some(bytes) = self.inflation.decode(stream)? {
                content.extend_from_slice(&bytes);
                content.push(b'\n');
            }
        }
        Ok(content)
    }

    fn run(
        &mut self,
        content: &[u8],
        resources: Option<&'d Dictionary>,
        mut state: State<'d>,
        depth: usize,
    ) -> Result<Flow, ExtractError> {
        let Some(left) = self.work_left.checked_sub(content.len() as u64) else {
            return Ok(Flow::Stop);
        };
        self.work_left = left;
        let mut saved: Vec<State<'d>> = Vec::new();
        // `q`s past MAX_SAVED_STATES saved nothing, so their `Q`s restore nothing.
        let mut unsaved = 0usize;
        let (mut tm, mut tlm) = (Matrix::IDENTITY, Matrix::IDENTITY);
        let mut operands: Vec<Object> = Vec::new();
        // Shared by the operands of one operator, so 32 huge arrays cannot add up.
        let mut budget = MAX_OPERAND_OBJECTS;
        let mut lexer = Lexer::new(content);
        while let Some(token) = lexer.next_token() {
            let op = match token {
                Token::Word(op) if !matches!(op, b"true" | b"false" | b"null") => op,
                token => {
                    match pdf_syntax::object(&mut lexer, token, false, &mut budget) {
                        Ok(operand) => {
                            if operands.len() == MAX_OPERANDS {
                                operands.remove(0);
                            }
                            operands.push(operand);
                        }
                        Err(_) => {
                            operands.clear();
                            budget = MAX_OPERAND_OBJECTS;
                        }
                    }
                    continue;
                }
            };
            match op {
                b"q" if saved.len() < MAX_SAVED_STATES => saved.push(state.clone()),
                b"q" => unsaved += 1,
                b"Q" if unsaved > 0 => unsaved -= 1,
                b"Q" => state = saved.pop().unwrap_or(state),
                b"cm" => {
                    if let Some(m) = Matrix::from(&operands) {
                        state.ctm = m.then(&state.ctm);
                    }
                }
                b"BT" => (tm, tlm) = (Matrix::IDENTITY, Matrix::IDENTITY),
                b"Tf" => {
                    if let [.., Object::Name(name), size] = operands.as_slice() {
                        state.font = self.font(resources, name);
                        state.size = number(size).unwrap_or(0.0);
                    }
                }
                b"Tc" | b"Tw" | b"Tz" | b"TL" | b"Ts" => {
                    if let Some([value]) = numbers::<1>(&operands) {
                        match op {
                            b"Tc" => state.char_space = value,
                            b"Tw" => state.word_space = value,
                            b"Tz" => state.scale = value / 100.0,
                            b"TL" => state.leading = value,
                            _ => state.rise = value,
                        }
                    }
                }
                b"Td" | b"TD" => {
                    if let Some([x, y]) = numbers::<2>(&operands) {
                        if op == b"TD" {
                            state.leading = -y;
                        }
                        tlm = Matrix::translate(x, y).then(&tlm);
                        tm = tlm;
                    }
                }
                b"Tm" => {
                    if let Some(m) = Matrix::from(&operands) {
                        (tm, tlm) = (m, m);
                    }
                }
                b"T*" | b"'" | b"\"" => {
                    if op == b"\"" {
                        if let [.., word, char, _] = operands.as_slice() {
                            state.word_space = number(word).unwrap_or(state.word_space);
                            state.char_space = number(char).unwrap_or(state.char_space);
                        }
                    }
                    tlm = Matrix::translate(0.0, -state.leading).then(&tlm);
                    tm = tlm;
                    if let (true, Some(Object::String(bytes, _))) = (op != b"T*", operands.last()) {
                        self.show(bytes, &state, &mut tm)?;
                    }
                }
                b"Tj" => {
                    if let Some(Object::String(bytes, _)) = operands.last() {
                        self.show(bytes, &state, &mut tm)?;
                    }
                }
                b"TJ" => {
                    if let Some(Object::Array(items)) = operands.last() {
                        for item in items {
                            if let Object::String(bytes, _) = item {
                                self.show(bytes, &state, &mut tm)?;
                            } else if let Some(n) = number(item) {
                                let shift = -n / 1000.0 * state.size * state.scale;
                                tm = Matrix::translate(shift, 0.0).then(&tm);
                            }
                        }
                    }
                }
                b"Do" => {
                    if let Some(Object::Name(name)) = operands.last() {
                        if self.form(resources, name, &state, depth)? == Flow::Stop {
                            return Ok(Flow::Stop);
                        }
                    }
                }
                b"ID" => lexer.skip_inline_image(),
                _ => {}
            }
            operands.clear();
            budget = MAX_OPERAND_OBJECTS;
        }
        Ok(Flow::Go)
    }

    fn font(&mut self, resources: Option<&'d Dictionary>, name: &[u8]) -> Option<Rc<Font<'d>>> {
        let doc: &'d Document = &self.pdf.doc;
        let (_, font) = doc
            .dereference(lookup(doc, resources?, b"Font", name)?)
            .ok()?;
        let dict = font.as_dict().ok()?;
        let key: *const Dictionary = dict;
        if let Some(font) = self.fonts.get(&key) {
            return Some(font.clone());
        }
        // Reading a font's cmap and widths is work too, and a parsed cmap takes several times
        // its bytes: many fonts sharing one huge cmap must not each parse it past the budgets.
        let (cmap, work) = Font::cost(doc, dict);
        self.cmap_left = self.cmap_left.checked_sub(cmap)?;
        self.work_left = self.work_left.checked_sub(work)?;
        let font = Rc::new(Font::new(doc, dict));
        self.fonts.insert(key, font.clone());
        Some(font)
    }

    fn show(
        &mut self,
        bytes: &[u8],
        state: &State<'d>,
        tm: &mut Matrix,
    ) -> Result<(), ExtractError> {
        let Some(font) = &state.font else {
            return Ok(());
        };
        let advance = font.advance(bytes);
        let tx = (advance.width * state.size
            + state.char_space * advance.codes as f64
            + state.word_space * advance.spaces as f64)
            * state.scale;
        let at = tm.then(&state.ctm);
        let start = at.apply(0.0, state.rise);
        *tm = Matrix::translate(tx, 0.0).then(tm);
        let end = tm.then(&state.ctm).apply(0.0, state.rise);
        let [a, b, c, d, _, _] = at.0;
        let norm = a.hypot(b);
        let placed = Placed {
            end,
            direction: if norm > 0.0 {
                (a / norm, b / norm)
            } else {
                (1.0, 0.0)
            },
            size: state.size.abs() * (a * d - b * c).abs().sqrt(),
        };
        self.text.place(&font.text(bytes), start, placed)
    }

    fn form(
        &mut self,
        resources: Option<&'d Dictionary>,
        name: &[u8],
        state: &State<'d>,
        depth: usize,
    ) -> Result<Flow, ExtractError> {
        let pdf: &'d Pdf = self.pdf;
        let Some(Ok((Some(id), Object::Stream(form)))) = resources
            .and_then(|r| lookup(&pdf.doc, r, b"XObject", name))
            .map(|x| pdf.doc.dereference(x))
        else {
            return Ok(Flow::Go);
        };
        let is_form = form.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Form");
        if !is_form
            || depth >= MAX_FORM_DEPTH
            || self.open_forms.contains(&id)
            || self.textless.contains(&id)
        {
            return Ok(Flow::Go);
        }
        let content = match self.forms.get(&id) {
            Some(content) => content.clone(),
            None => {
                let decoded = match pdf.streams.get(&id) {
                    Some(stream) => self.inflation.decode(stream)?,
                    None => None,
                };
                let content: Rc<[u8]> = Rc::from(decoded.as_deref().unwrap_or_default());
                self.forms.insert(id, content.clone());
                content
            }
        };
        let mut inner = state.clone();
        let matrix = form.dict.get(b"Matrix").and_then(Object::as_array);
        if let Some(m) = matrix.ok().and_then(|m| Matrix::from(m)) {
            inner.ctm = m.then(&state.ctm);
        }
        let own = form
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|r| dict_of(&pdf.doc, r));
        let shown = self.text.shown;
        self.open_forms.push(id);
        let flow = self.run(&content, own.or(resources), inner, depth + 1);
        self.open_forms.pop();
        if self.text.shown == shown {
            self.textless.insert(id);
        }
        flow
    }
}
