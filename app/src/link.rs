//! 关联设备 (under 设置): show a code on this device for the player's other one, or type the
//! code the other device shows so that this one plays as that account. The code is typed on
//! a keypad of its own alphabet (the api crate's: no look-alikes), like a room's code.

use tongcheng_api::auth::{LINK_CODE_ALPHABET, LINK_CODE_LEN};

use crate::catalogue::{Lang, Text};
use crate::model::Tap;
use crate::online::{Link, LinkFailure, Online};
use crate::rooms::keypad;
use crate::view::{Button, LinkView};

/// The code typed so far (the alphabet's characters only, at most eight).
#[derive(Debug, Default)]
pub(crate) struct LinkForm {
    pub(crate) typed: String,
}

impl LinkForm {
    /// A key of the keypad, or 删除; false for any other tap.
    pub(crate) fn tap(&mut self, tap: &Tap) -> bool {
        match tap {
            Tap::LinkKey { key }
                if self.typed.len() < LINK_CODE_LEN
                    && key.is_ascii()
                    && LINK_CODE_ALPHABET.contains(&(*key as u8)) =>
            {
                self.typed.push(*key);
            }
            Tap::DeleteDigit => {
                self.typed.pop();
            }
            _ => return false,
        }
        true
    }

    /// The code, when all of it is typed.
    pub(crate) fn whole(&self) -> Option<String> {
        (self.typed.len() == LINK_CODE_LEN).then(|| self.typed.clone())
    }

    pub(crate) fn view(&self, online: &Online, lang: Lang) -> LinkView {
        let zh = lang == Lang::ZhCn;
        let signed_in = online.token().is_some();
        let busy = online.link == Link::Joining;
        let shown = match &online.link {
            Link::Shown { code, expires_in } => {
                // The server's figure, read as it came: kept within a day before the sum.
                let minutes = ((*expires_in).clamp(0, 86_400) + 59) / 60;
                Some(if zh {
                    format!("{code}（{minutes} 分钟内有效）")
                } else {
                    format!("{code} (valid for {minutes} min)")
                })
            }
            _ => None,
        };
        let notice = match &online.link {
            Link::Idle | Link::Shown { .. } => None,
            Link::Joining => Some(Text::Linking.get(lang).to_string()),
            Link::Joined { name } => Some(if zh {
                format!("本机已关联到：{name}")
            } else {
                format!("This device now plays as {name}")
            }),
            Link::Failed(f) => Some(match f {
                LinkFailure::BadCode => Text::BadLinkCode.get(lang).to_string(),
                LinkFailure::InUse => Text::LinkInUse.get(lang).to_string(),
                LinkFailure::Offline => Text::LinkOffline.get(lang).to_string(),
                LinkFailure::Server(words) => words.clone(),
            }),
        };
        let letters = LINK_CODE_ALPHABET.iter().map(|&b| {
            let key = char::from(b);
            (key.to_string(), Tap::LinkKey { key })
        });
        let keypad = keypad(letters, self.typed.len(), LINK_CODE_LEN, lang);
        // Typed as it is shown: ABCD-EFGH.
        let mut typed = self.typed.clone();
        if typed.len() > 4 {
            typed.insert(4, '-');
        }
        LinkView {
            title: Text::LinkDevices.get(lang).into(),
            show_label: Text::ShowLinkHelp.get(lang).into(),
            show_code: Button::new(
                Text::ShowLinkCode.get(lang),
                signed_in && !busy,
                Tap::ShowLinkCode,
            ),
            shown,
            type_label: Text::TypeLinkHelp.get(lang).into(),
            typed,
            keypad,
            join: Button::new(
                Text::LinkJoin.get(lang),
                signed_in && !busy && self.whole().is_some(),
                Tap::JoinByCode,
            ),
            notice,
            back: Button::new(Text::Back.get(lang), true, Tap::Back),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keypad_types_only_the_codes_alphabet_and_at_most_eight() {
        let mut f = LinkForm::default();
        for key in ['A', 'I', 'O', '0', '1', 'b', '2'] {
            f.tap(&Tap::LinkKey { key });
        }
        assert_eq!(f.typed, "A2", "look-alikes and lower case are no keys");
        for key in "BCDEFGHJ".chars() {
            f.tap(&Tap::LinkKey { key });
        }
        assert_eq!(f.whole().as_deref(), Some("A2BCDEFG"));
        let v = f.view(&Online::default(), Lang::ZhCn);
        assert_eq!(v.typed, "A2BC-DEFG");
        assert!(
            v.keypad
                .iter()
                .filter(|b| b.name != "删除")
                .all(|b| !b.enabled)
        );
        assert!(!v.join.enabled, "not signed in");
        assert_eq!(v.keypad.len(), 33);
        f.tap(&Tap::DeleteDigit);
        assert!(f.whole().is_none());
    }
}
