// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment/text_options.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSpinBox>

#include "experiment/enum_combo.h"
#include "widgets/named.h"

namespace accumlab::ui {

TextOptions::TextOptions(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  split_ = named(new QComboBox(this), "text_split");
  addEnumItems(split_, {TextSplit::kLine, TextSplit::kParagraph});
  split_->setToolTip(
      tr("What one sequence is: a non-empty line of the file, or a paragraph (lines up to a "
         "blank line). The fortunes are always one quote each (--text-split)."));
  max_len_ = named(new QSpinBox(this), "max_len",
                   tr("Bytes kept of each sequence; longer ones are cut and counted. Activations "
                      "grow with m × this length (--max-len)."));
  max_len_->setRange(1, static_cast<int>(kMaxTextLength));
  max_len_->setSuffix(tr(" bytes"));
  token_loss_ = named(new QComboBox(this), "token_loss");
  addEnumItems(token_loss_, {TokenLoss::kTokens, TokenLoss::kSequences});
  token_loss_->setToolTip(
      tr("<b>tokens</b>: every token's loss summed and divided by the target tokens of the "
         "whole window, counted before its first backward, so accumulation equals the big "
         "batch.<br><b>sequences</b>: each sequence's mean over its tokens, then the mean over "
         "sequences: another objective (a short line weighs as much as a long one), not the "
         "big batch's per-token loss (--token-loss)."));
  row->addWidget(split_);
  row->addWidget(max_len_);
  row->addWidget(token_loss_, 1);
  for (QComboBox* combo : {split_, token_loss_}) {
    connect(combo, qOverload<int>(&QComboBox::currentIndexChanged), this, &TextOptions::edited);
  }
  connect(max_len_, qOverload<int>(&QSpinBox::valueChanged), this, &TextOptions::edited);
}

void TextOptions::writeTo(ExperimentConfig* config) const {
  config->text_split = enumOf<TextSplit>(split_);
  config->max_len = max_len_->value();
  config->token_loss = enumOf<TokenLoss>(token_loss_);
}

void TextOptions::setConfig(const ExperimentConfig& c) {
  const QSignalBlocker block_split(split_);
  const QSignalBlocker block_len(max_len_);
  const QSignalBlocker block_loss(token_loss_);
  selectEnum(split_, c.text_split);
  max_len_->setValue(static_cast<int>(c.max_len));
  selectEnum(token_loss_, c.token_loss);
}

void TextOptions::setSplitApplies(bool applies) { split_->setEnabled(applies); }

}  // namespace accumlab::ui
