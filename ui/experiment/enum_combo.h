// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QComboBox>
#include <algorithm>
#include <initializer_list>
#include <string>

namespace accumlab::ui {

/// Adds one item per value of an enum that core names with toString(), the value as its data.
template <typename Enum>
void addEnumItems(QComboBox* combo, std::initializer_list<Enum> values) {
  for (Enum v : values) combo->addItem(QString::fromStdString(toString(v)), static_cast<int>(v));
}

/// The enum value of the item shown.
template <typename Enum>
Enum enumOf(const QComboBox* combo) {
  return static_cast<Enum>(combo->currentData().toInt());
}

/// Shows the item of `v` (the first item when there is none).
template <typename Enum>
void selectEnum(QComboBox* combo, Enum v) {
  combo->setCurrentIndex(std::max(0, combo->findData(static_cast<int>(v))));
}

}  // namespace accumlab::ui
