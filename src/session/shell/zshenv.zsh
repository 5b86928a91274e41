# shotty shell integration for zsh: the user's .zshenv, read from their own ZDOTDIR.
if [[ -z $SHOTTY_ZSH_NORCS && -r $SHOTTY_ZDOTDIR/.zshenv ]]; then
    __shotty_dir=$ZDOTDIR
    ZDOTDIR=$SHOTTY_ZDOTDIR
    . $ZDOTDIR/.zshenv
    SHOTTY_ZDOTDIR=$ZDOTDIR
    ZDOTDIR=$__shotty_dir
    unset __shotty_dir
fi
