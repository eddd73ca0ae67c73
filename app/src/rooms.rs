//! 好友房: open a room for friends (its six-digit code to pass on) or join one by its code.
//! The form only: what it sends goes through the online table like 快速匹配's queue.

use tongcheng_api::play::is_room_code;

use crate::catalogue::{Lang, Text, preset_name};
use crate::model::Tap;
use crate::view::{Button, Picker, RoomView};

/// What the room screen holds.
#[derive(Debug)]
pub(crate) struct RoomForm {
    /// The code typed so far (digits only, at most six).
    pub(crate) code: String,
    /// People in a room to open, the owner included.
    pub(crate) people: u8,
}

impl Default for RoomForm {
    fn default() -> RoomForm {
        RoomForm {
            code: String::new(),
            people: 2,
        }
    }
}

impl RoomForm {
    /// A tap on the form; true when it was the form's.
    pub(crate) fn tap(&mut self, tap: &Tap) -> bool {
        match *tap {
            Tap::Digit { digit } if digit < 10 && self.code.len() < 6 => {
                self.code.push(char::from(b'0' + digit));
            }
            Tap::DeleteDigit => {
                self.code.pop();
            }
            Tap::RoomPeople { people } if (2..=4).contains(&people) => self.people = people,
            _ => return false,
        }
        true
    }

    /// The code, when it is a whole one.
    pub(crate) fn whole_code(&self) -> Option<&str> {
        is_room_code(&self.code).then_some(self.code.as_str())
    }

    pub(crate) fn view(&self, preset: &str, signed_in: bool, lang: Lang) -> RoomView {
        let people = Picker {
            label: Text::People.get(lang).into(),
            options: (2..=4u8)
                .map(|n| {
                    let label = match lang {
                        Lang::ZhCn => format!("{n} 人"),
                        Lang::En => format!("{n} people"),
                    };
                    Button::new(label, true, Tap::RoomPeople { people: n })
                        .selected(n == self.people)
                })
                .collect(),
        };
        let digits = (1..=9u8)
            .chain([0])
            .map(|d| (d.to_string(), Tap::Digit { digit: d }));
        let keypad = keypad(digits, self.code.len(), 6, lang);
        RoomView {
            title: Text::FriendsRoom.get(lang).into(),
            rules: preset_name(preset, lang),
            people,
            open: Button::new(Text::OpenRoom.get(lang), signed_in, Tap::OpenRoom),
            code_label: Text::RoomCode.get(lang).into(),
            code: self.code.clone(),
            keypad,
            join: Button::new(
                Text::JoinRoom.get(lang),
                signed_in && self.whole_code().is_some(),
                Tap::JoinRoom,
            ),
            back: Button::new(Text::Back.get(lang), true, Tap::Back),
        }
    }
}

/// A code's keypad (a room's digits, a link code's letters): a key each, open while the code
/// is not whole, then 删除 while something is typed.
pub(crate) fn keypad(
    keys: impl IntoIterator<Item = (String, Tap)>,
    typed: usize,
    whole: usize,
    lang: Lang,
) -> Vec<Button> {
    let mut pad: Vec<Button> = keys
        .into_iter()
        .map(|(label, tap)| Button::new(label, typed < whole, tap))
        .collect();
    pad.push(Button::new(
        Text::DeleteDigit.get(lang),
        typed > 0,
        Tap::DeleteDigit,
    ));
    pad
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_takes_six_digits_and_a_delete() {
        let mut f = RoomForm::default();
        for d in [1, 2, 3, 4, 5] {
            assert!(f.tap(&Tap::Digit { digit: d }));
        }
        let v = f.view("guobiao", true, Lang::ZhCn);
        assert!(!v.join.enabled, "five digits are not a code");
        f.tap(&Tap::Digit { digit: 0 });
        f.tap(&Tap::Digit { digit: 9 });
        assert_eq!(f.whole_code(), Some("123450"));
        let v = f.view("guobiao", true, Lang::ZhCn);
        assert!(v.join.enabled);
        assert!(
            v.keypad[..10].iter().all(|b| !b.enabled),
            "full: no more digits"
        );
        f.tap(&Tap::DeleteDigit);
        assert_eq!(f.code, "12345");
        assert!(!f.tap(&Tap::Digit { digit: 10 }));
        assert!(!f.tap(&Tap::RoomPeople { people: 5 }));
        // Without a login nothing can be sent.
        let v = f.view("guobiao", false, Lang::En);
        assert!(!v.open.enabled && !v.join.enabled);
        assert_eq!(v.code_label, "Room code");
    }
}
